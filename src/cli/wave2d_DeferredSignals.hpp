// Signals held back while a run can still save itself or clean up: a last checkpoint, a
// child program ended and its temporary removed, then the end.
#ifndef WAVE2D_CLI_DEFERRED_SIGNALS_HPP
#define WAVE2D_CLI_DEFERRED_SIGNALS_HPP

namespace wave2d::cli {

// While one lives, SIGINT, SIGTERM and SIGHUP are only recorded (those the parent set
// to be ignored stay ignored): the stepping loop asks pending() between chunks, the
// video's maker while ffmpeg runs. When it goes, they again remove the temporary files
// and end the process (remove_temporary_files_on_signals), and one recorded meanwhile is
// raised then.
class DeferredSignals {
 public:
  DeferredSignals();
  ~DeferredSignals();
  DeferredSignals(DeferredSignals const&) = delete;
  DeferredSignals& operator=(DeferredSignals const&) = delete;

  // The signal received, 0 if none.
  int pending() const;
  // Ends the process by the pending signal, as it would have ended it.
  [[noreturn]] void end_by_pending_signal() { end_by(pending()); }
  // Ends the process by `signal_number`, as that signal would have ended it: the ranks of a
  // distributed run stopped by one rank's signal end as that rank does.
  [[noreturn]] void end_by(int signal_number);
};

}  // namespace wave2d::cli

#endif
