package dev.agentrt.testing;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.bson.BsonValue;

/**
 * Records the commands a MongoDB client sends ({@code "find sub_agents"}: the command and its
 * collection) and the thread that sent each, for tests that count round trips. Register it with
 * {@code MongoClientSettings.Builder.addCommandListener}.
 */
public final class MongoCommands implements CommandListener {

  private record Sent(String command, Thread thread) {}

  private final List<Sent> sent = new CopyOnWriteArrayList<>();

  @Override
  public void commandStarted(CommandStartedEvent event) {
    BsonValue collection = event.getCommand().get(event.getCommandName());
    String target =
        collection != null && collection.isString() ? collection.asString().getValue() : "";
    sent.add(new Sent(event.getCommandName() + " " + target, Thread.currentThread()));
  }

  /** Forgets what was sent so far. */
  public void clear() {
    sent.clear();
  }

  /** The commands sent from the threads the predicate accepts, in order. */
  public List<String> from(Predicate<Thread> threads) {
    return sent.stream().filter(s -> threads.test(s.thread())).map(Sent::command).toList();
  }
}
