#include <cli/wave2d_DeferredSignals.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#include <csignal>
#include <cstdlib>

namespace wave2d::cli {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void record_signal(int signal_number) { received = signal_number; }

}  // namespace

DeferredSignals::DeferredSignals() {
  received = 0;
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    if (std::signal(signal_number, record_signal) == SIG_IGN) std::signal(signal_number, SIG_IGN);
  }
}

DeferredSignals::~DeferredSignals() {
  remove_temporary_files_on_signals();
  if (received != 0) std::raise(received);
}

int DeferredSignals::pending() const { return received; }

void DeferredSignals::end_by(int signal_number) {
  if (signal_number <= 0 || signal_number >= NSIG) std::_Exit(1);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
  std::_Exit(128 + signal_number);  // not reached: the signal's default action ends the process
}

}  // namespace wave2d::cli
