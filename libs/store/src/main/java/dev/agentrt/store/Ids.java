package dev.agentrt.store;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.bson.types.ObjectId;

/**
 * Document ids. A document made in reaction to an event gets an id derived from what triggered it,
 * so handling the event twice finds the first document instead of making a second (DESIGN invariant
 * 2). A document made by a request gets a fresh, time-ordered id.
 */
public final class Ids {

  /** A fresh id that sorts by creation time. */
  public static String fresh() {
    return new ObjectId().toHexString();
  }

  /** The same id every time for the same parent and purpose, e.g. the task of a chat message. */
  public static String derived(String parentId, String purpose) {
    return UUID.nameUUIDFromBytes((parentId + "/" + purpose).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  private Ids() {}
}
