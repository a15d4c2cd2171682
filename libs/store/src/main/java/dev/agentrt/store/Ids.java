package dev.agentrt.store;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Document ids. A document made in reaction to an event gets an id derived from what triggered it,
 * so handling the event twice finds the first document instead of making a second (DESIGN invariant
 * 2). A document made by a request gets a fresh, time-ordered id.
 */
public final class Ids {

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * A fresh id that sorts by creation time: a version 7 UUID (RFC 9562), milliseconds since the
   * epoch then random bits. Stored as a string, like every id here, and never mistaken for an
   * ObjectId.
   */
  public static String fresh() {
    long millis = System.currentTimeMillis();
    long random = RANDOM.nextLong();
    long high = (millis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0FFFL);
    long low = (random & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(high, low).toString();
  }

  /** The same id every time for the same parent and purpose, e.g. the task of a chat message. */
  public static String derived(String parentId, String purpose) {
    return UUID.nameUUIDFromBytes((parentId + "/" + purpose).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  private Ids() {}
}
