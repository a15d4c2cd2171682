package dev.agentrt.testing;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Runs an action just before a client sends the next command of a kind ({@code "findAndModify
 * tasks"}: the command and its collection), on the thread sending it: for tests that put another
 * party's writes exactly between two writes of the code under test. Register it with {@code
 * MongoClientSettings.Builder.addCommandListener}; the action should write through another client.
 */
public final class MongoGate implements CommandListener {

  private record Armed(String command, Predicate<BsonDocument> which, Runnable action) {}

  private final AtomicReference<Armed> armed = new AtomicReference<>();
  private volatile boolean opened;

  /** Runs {@code action} once, before the next {@code command} this client sends. */
  public void before(String command, Runnable action) {
    before(command, document -> true, action);
  }

  /**
   * Runs {@code action} once, before the next {@code command} this client sends that is {@code
   * which}.
   */
  public void before(String command, Predicate<BsonDocument> which, Runnable action) {
    opened = false;
    armed.set(new Armed(command, which, action));
  }

  /** Whether the armed action ran. */
  public boolean opened() {
    return opened;
  }

  @Override
  public void commandStarted(CommandStartedEvent event) {
    Armed next = armed.get();
    if (next == null) {
      return;
    }
    BsonValue collection = event.getCommand().get(event.getCommandName());
    String target =
        collection != null && collection.isString() ? collection.asString().getValue() : "";
    if (next.command().equals(event.getCommandName() + " " + target)
        && next.which().test(event.getCommand())
        && armed.compareAndSet(next, null)) {
      next.action().run();
      opened = true;
    }
  }
}
