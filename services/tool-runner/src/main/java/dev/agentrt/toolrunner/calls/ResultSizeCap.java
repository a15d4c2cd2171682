package dev.agentrt.toolrunner.calls;

import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.nio.charset.StandardCharsets;

/**
 * Cuts an outcome longer than {@code agentrt.tools.max-result-size} (UTF-8 bytes), so that it fits
 * a MongoDB document (16 MiB; a larger one could never be recorded and its call would be taken back
 * and run again forever) and a model's context. The cut text ends with a marker the model reads,
 * e.g. {@code …[truncated: 20971531 bytes, showing the first 262088]}; a cut result is no longer
 * valid JSON. A failure keeps its JSON shape: its message is cut.
 */
final class ResultSizeCap {

  private static final String MARKER = "…[truncated: %d bytes, showing the first %d]";

  private final int maxBytes;

  ResultSizeCap(long maxBytes) {
    this.maxBytes = (int) Math.min(maxBytes, Integer.MAX_VALUE);
  }

  ToolOutcome apply(ToolOutcome outcome) {
    return switch (outcome) {
      case ToolOutcome.Success success ->
          utf8Length(success.json()) <= maxBytes
              ? success
              : new ToolOutcome.Success(cut(success.json(), maxBytes));
      case ToolOutcome.Failure failure -> cutMessage(failure);
    };
  }

  /** Cuts the message until the error's JSON fits (escaping may make it longer than the text). */
  private ToolOutcome.Failure cutMessage(ToolOutcome.Failure failure) {
    ToolOutcome.Failure cut = failure;
    int room = maxBytes;
    while (utf8Length(cut.json()) > maxBytes) {
      room = room / 2;
      cut =
          new ToolOutcome.Failure(
              failure.errorType(), cut(failure.message(), room), failure.transientFailure());
    }
    return cut;
  }

  /** The text's first bytes (whole characters) and the marker, at most {@code limit} bytes. */
  static String cut(String text, int limit) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= limit) {
      return text;
    }
    int shown = Math.max(0, limit - utf8Length(MARKER.formatted(bytes.length, limit)));
    while (shown > 0 && (bytes[shown] & 0xC0) == 0x80) {
      shown--; // not inside a character's bytes
    }
    return new String(bytes, 0, shown, StandardCharsets.UTF_8)
        + MARKER.formatted(bytes.length, shown);
  }

  private static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }
}
