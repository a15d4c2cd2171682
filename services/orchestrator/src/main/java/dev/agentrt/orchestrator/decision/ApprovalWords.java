package dev.agentrt.orchestrator.decision;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A person's message read as a decision on the call that awaits their approval: "approve" (or
 * approved, yes, ok, go ahead) approves; "reject" (or rejected, deny, no) rejects, and what follows
 * it is the reason ("reject: not today"). Anything else is not a decision.
 */
final class ApprovalWords {

  /** What the message decided; {@code reason} null when a rejection gave none. */
  record Verdict(boolean approved, @Nullable String reason) {}

  private static final Pattern APPROVE =
      Pattern.compile("(?i)\\s*(approve|approved|yes|ok|okay|go ahead)[\\s.!]*");
  private static final Pattern REJECT =
      Pattern.compile("(?is)\\s*(reject|rejected|deny|denied|no)\\b[\\s:,.!-]*(.*?)\\s*");

  private ApprovalWords() {}

  static Optional<Verdict> read(String message) {
    if (APPROVE.matcher(message).matches()) {
      return Optional.of(new Verdict(true, null));
    }
    Matcher reject = REJECT.matcher(message);
    if (reject.matches()) {
      String reason = reject.group(2);
      return Optional.of(new Verdict(false, reason.isEmpty() ? null : reason));
    }
    return Optional.empty();
  }
}
