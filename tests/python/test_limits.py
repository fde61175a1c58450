"""The Python module wave2d given hostile input: self-referencing, deep or huge values.
Each is a Python exception with a one-line message, or done right; never a crash.
"""

import unittest

import wave2d

SCENE = {
    "name": "limits",
    "grid": {"nx": 40, "ny": 30},
    "time": {"steps": 60},
    "sources": [{"x": 10, "y": 10, "waveform": "ricker", "frequency": 15.0, "delay": 0.1}],
    "receivers": [{"x": 30, "y": 20}],
}


class HostileSceneDicts(unittest.TestCase):
    def assert_refused(self, source, message, error=wave2d.SceneError):
        with self.assertRaises(error) as caught:
            wave2d.Scene(source)
        text = str(caught.exception)
        self.assertIn(message, text)
        self.assertNotIn("\n", text)
        self.assertNotRegex(text, r"<dict>|:\d+:")  # no line of a text the user never saw

    def test_a_dict_that_contains_itself(self):
        d = {}
        d["a"] = d
        self.assert_refused(d, "scene dict: a: contains itself")
        looped = dict(SCENE, grid={"nx": 40, "ny": 30})
        looped["grid"]["more"] = [looped]
        self.assert_refused(looped, "scene dict: grid.more[0]: contains itself")

    def test_a_list_that_contains_itself(self):
        items = []
        items.append(items)
        self.assert_refused(dict(SCENE, sources=items), "scene dict: sources[0]: contains itself")
        self.assert_refused(dict(SCENE, sources=(items,)),
                            "scene dict: sources[0][0]: contains itself")

    def test_a_value_met_twice_apart_is_no_loop(self):
        shared = {"x": 1, "y": 1}
        scene = wave2d.Scene(dict(SCENE, receivers=[shared, shared]))
        self.assertEqual(scene.receivers, [(1, 1), (1, 1)])

    def test_deep_nesting(self):
        deep = {}
        for _ in range(30000):
            deep = {"a": deep}
        self.assert_refused(deep, "nested more than 32 dicts and lists deep")
        deep_list = [1.0]
        for _ in range(30000):
            deep_list = [deep_list]
        self.assert_refused(dict(SCENE, sources=deep_list), "nested more than 32 dicts and lists")

    def test_sizes_beyond_a_scene_file(self):
        self.assert_refused(dict(SCENE, name="n" * (17 << 20)), "scene dict: name: a string "
                            "longer than 16777216 bytes")
        self.assert_refused(dict(SCENE, sources=[0] * (9 << 20)),
                            "scene dict: sources: more than a scene file may hold")
        self.assert_refused(dict(SCENE, grid={"nx": 2**64, "ny": 30}),
                            "scene dict: grid.nx: an integer beyond 64 bits")
        self.assert_refused(dict(SCENE, grid={"n" * 300: 1}), "a string longer than 256 bytes")

    def test_values_that_run_code_cannot_pull_the_dict_away(self):
        scene = dict(SCENE)

        class Shrinking:
            def __index__(self):
                scene.clear()
                return 40

        scene["grid"] = {"nx": Shrinking(), "ny": 30}
        self.assertEqual(wave2d.Scene(scene).nx, 40)

        class Endless(list):
            def __iter__(self):
                while True:
                    yield {"x": 1, "y": 1}

        self.assertEqual(wave2d.Scene(dict(SCENE, receivers=Endless())).receivers, [])

    def test_errors_name_the_key_path(self):
        sources = [{"x": 10, "y": 10, "frequency": 15.0}, {"x": 12, "y": 10, "frequency": -1.0}]
        self.assert_refused(dict(SCENE, sources=sources),
                            "scene dict: sources[1].frequency: must be positive, got -1")
        self.assert_refused(dict(SCENE, grid={"nx": 40}), "scene dict: grid.ny: missing")
        self.assert_refused({"grid": {"nx": None}}, "scene dict: grid.nx: a NoneType",
                            error=TypeError)


if __name__ == "__main__":
    unittest.main()
