package dev.agentrt.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A short, stable fingerprint of some texts: the first 16 hex digits of the SHA-256 of the texts,
 * each ended by a NUL. The same texts give the same digest in every process; it names a version, it
 * secures nothing.
 */
public final class Digest {

  private Digest() {}

  public static String of(String... parts) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    for (String part : parts) {
      sha.update(part.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
    }
    return HexFormat.of().formatHex(sha.digest(), 0, 8);
  }
}
