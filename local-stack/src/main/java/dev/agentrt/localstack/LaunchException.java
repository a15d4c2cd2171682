package dev.agentrt.localstack;

/** A reason not to (or no longer) run, shown to the user as {@code error: <message>}. */
final class LaunchException extends RuntimeException {

  static final int FAILED = 1;
  static final int USAGE = 2;

  private final int exitCode;

  LaunchException(String message) {
    this(message, FAILED);
  }

  private LaunchException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  static LaunchException usage(String message) {
    return new LaunchException(message, USAGE);
  }

  int exitCode() {
    return exitCode;
  }
}
