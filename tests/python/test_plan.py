"""The plan as data: wave2d.plan() and Simulation.plan, what `wave2d plan` shows.

Run by CTest with the other tests of tests/python (the plan cache in the build).
"""

import unittest

import wave2d

KEYS = {"backend", "mode", "from_cache", "ranking", "trial_seconds", "notes", "cache_file",
        "summary", "estimate", "key"}
KEY_KEYS = {"device", "space", "threads", "nx", "ny", "version"}


class Plans(unittest.TestCase):
    def test_a_trial_ranks_the_candidates(self):
        plan = wave2d.plan("double-slit-small")
        self.assertEqual(set(plan), KEYS)
        self.assertEqual(set(plan["key"]), KEY_KEYS)
        self.assertEqual(plan["mode"], "measure")
        self.assertFalse(plan["from_cache"])
        self.assertGreater(plan["trial_seconds"], 0.0)
        backends = [backend for backend, _ in plan["ranking"]]
        self.assertEqual(plan["backend"], backends[0])
        self.assertTrue(set(backends) <= set(wave2d.backends()))
        self.assertNotIn("reference", backends)
        rates = [rate for _, rate in plan["ranking"]]
        self.assertEqual(rates, sorted(rates, reverse=True))
        self.assertIn(plan["estimate"], backends)
        self.assertTrue(plan["summary"].startswith("auto chose " + plan["backend"] + ": measured"))
        key = plan["key"]
        self.assertEqual((key["nx"], key["ny"]), (201, 201))
        self.assertEqual(key["space"], wave2d.execution_space())
        self.assertEqual(key["version"], wave2d.__version__)
        if plan["cache_file"] is not None:  # kept: read back by 'cached'
            self.assertIn(plan["cache_file"], plan["summary"])
            cached = wave2d.plan("double-slit-small", mode="cached")
            self.assertTrue(cached["from_cache"])
            self.assertEqual(cached["backend"], plan["backend"])
            self.assertEqual(cached["cache_file"], plan["cache_file"])

    @unittest.skipUnless(wave2d.has_scene_files, "this build reads no scene dicts (toml++ not found)")
    def test_an_estimate_has_no_trial(self):
        space = wave2d.spaces()[-1]
        plan = wave2d.plan({"grid": {"nx": 40, "ny": 30}, "time": {"steps": 5}}, space=space, mode="estimate")
        self.assertEqual((plan["mode"], plan["ranking"], plan["trial_seconds"]),
                         ("estimate", [], 0.0))
        self.assertEqual(plan["backend"], plan["estimate"])
        self.assertIsNone(plan["cache_file"])
        self.assertEqual(plan["summary"], f"auto chose {plan['backend']}: estimated, no trial")
        self.assertEqual(plan["key"]["space"].lower(), space)
        self.assertEqual((plan["key"]["nx"], plan["key"]["ny"]), (40, 30))

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "plan: unknown mode 'often'"):
            wave2d.plan("double-slit-small", mode="often")
        with self.assertRaisesRegex(ValueError, "unknown execution space 'warp'"):
            wave2d.plan("double-slit-small", space="warp")
        with self.assertRaisesRegex(wave2d.SceneError, "unknown scene 'nowhere'"):
            wave2d.plan("nowhere")

    def test_a_simulation_says_how_auto_chose(self):
        simulation = wave2d.Simulation("double-slit-small", plan="estimate")
        plan = simulation.plan
        self.assertEqual(set(plan), KEYS)
        self.assertEqual(plan["backend"], simulation.backend)
        self.assertIn(plan["summary"], simulation.configuration)
        self.assertIsNone(wave2d.Simulation("double-slit-small", backend="reference").plan)


if __name__ == "__main__":
    unittest.main()
