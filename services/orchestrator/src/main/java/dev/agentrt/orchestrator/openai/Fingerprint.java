package dev.agentrt.orchestrator.openai;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A conversation's identity as a client sees it: SHA-256 over its owner and its {@code user} and
 * {@code assistant} turns in order, each as role and length-prefixed content, so that no two
 * different sequences share a fingerprint by concatenation, and two users who happen to have the
 * same conversation have two fingerprints (one never continues the other's chat).
 */
final class Fingerprint {

  /** One turn of a conversation: role {@code user} or {@code assistant}, and its text. */
  record Turn(String role, String content) {}

  private Fingerprint() {}

  static String of(String owner, List<Turn> turns) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] user = owner.getBytes(StandardCharsets.UTF_8);
    sha.update(("owner\n" + user.length + "\n").getBytes(StandardCharsets.UTF_8));
    sha.update(user);
    for (Turn turn : turns) {
      byte[] content = turn.content().getBytes(StandardCharsets.UTF_8);
      sha.update((turn.role() + "\n" + content.length + "\n").getBytes(StandardCharsets.UTF_8));
      sha.update(content);
    }
    return HexFormat.of().formatHex(sha.digest());
  }
}
