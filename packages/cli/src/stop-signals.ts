/**
 * Ctrl+C (SIGINT) and SIGTERM, listened to while a command runs. A listener stays registered while
 * its signal is handled (`on`, not `once`): signal-exit, which execa loads to end child processes,
 * re-raises a signal when it finds itself the only listener and no child left to end, which killed
 * the process before its own clean-up ran (`mime studio` stopped by SIGTERM after a run: killed by the
 * signal instead of exiting 0).
 */
export function onStopSignals(interrupt: () => void, terminate: () => void = interrupt): () => void {
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', terminate);
  return () => {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', terminate);
  };
}
