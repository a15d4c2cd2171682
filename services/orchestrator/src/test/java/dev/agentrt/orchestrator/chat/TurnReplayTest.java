package dev.agentrt.orchestrator.chat;

import static dev.agentrt.orchestrator.testing.Stored.CHAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.ToolDefinitions;
import dev.agentrt.agents.TurnRequests;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.orchestrator.testing.Stored.Started;
import dev.agentrt.orchestrator.testing.TestModels;
import dev.agentrt.store.Collections;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.TurnInput;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.ScriptedModel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /api/tasks/{taskId}/turns/{n}/replay}: a turn asked again on exactly its input, on a
 * real MongoDB-protocol server with the scripted model; nothing is stored.
 */
class TurnReplayTest {

  private static final AgentCatalog AGENTS = AgentCatalog.fromClasspath("agents.yml");
  private static final ConfigVersion CONFIG = new ConfigVersion("config-1");

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final ScriptedModel model = new ScriptedModel();
  private Stored stored;
  private Started started;
  private TurnRequests agentLoop;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  /**
   * A researcher's run as agent-loop stores it: each answer with the input its turn was built from.
   */
  @BeforeEach
  void aResearcherWhoSearchedThenAnswered() {
    database.clear();
    stored = new Stored(mongo);
    stored.chat(CHAT, null);
    started =
        stored.startedTask(
            CHAT, "Research Kafka", TaskStatus.success, SubAgentStatus.completed, null);
    agentLoop = new TurnRequests(AGENTS, new ToolDefinitions(mongo), CONFIG);
    SubAgent subAgent = started.subAgent();
    stored.append(subAgent, "system", "You research.", List.of(), null);
    stored.append(subAgent, "user", "Research Kafka", List.of(), null);
    stored.turnAnswer(
        subAgent,
        null,
        List.of(new RequestedToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}")),
        null,
        inputOfNextTurn());
    stored.append(subAgent, "tool", "{\"results\":[]}", List.of(), "call_1");
    stored.turnAnswer(subAgent, "Kafka is a log.", List.of(), null, inputOfNextTurn());
  }

  @Test
  void aTurnIsAskedAgainOnExactlyItsInputAndItsAnswerShownBesideTheRecordedOne() {
    model.callsTools(new ModelToolCall("other-id", "search_docs", "{\"query\":\"Kafka\"}"));
    Map<String, Long> before = counts();

    TurnReplay.Replay replay = replays().replay(started.task(), 1, null);

    List<SubAgentMessage> firstTwo = conversation().subList(0, 2);
    assertThat(model.requests())
        .containsExactly(agentLoop.of(AGENTS.get("researcher"), firstTwo, null).request());
    assertThat(replay.turn()).isEqualTo(1);
    assertThat(replay.model()).isEqualTo("offline");
    assertThat(replay.recorded())
        .isEqualTo(
            new TurnReplay.Answer(
                "offline",
                null,
                List.of(new TurnReplay.Call("search_docs", "{\"query\":\"Kafka\"}"))));
    assertThat(replay.replayed()).isEqualTo(replay.recorded());
    assertThat(replay.sameAnswer()).as("the model's ids for its calls may differ").isTrue();
    assertThat(replay.inputChanges()).isEmpty();
    assertThat(counts()).as("nothing stored").isEqualTo(before);
  }

  @Test
  void anotherModelCanBeAskedAndADifferentAnswerIsShownAsSuch() {
    model.replies("Kafka is a distributed log.");

    TurnReplay.Replay replay = replays().replay(started.task(), 2, "big");

    assertThat(model.requests().getFirst().model()).isEqualTo("big");
    assertThat(model.requests().getFirst().messages()).hasSize(4);
    assertThat(replay.model()).isEqualTo("big");
    assertThat(replay.recorded().text()).isEqualTo("Kafka is a log.");
    assertThat(replay.replayed().text()).isEqualTo("Kafka is a distributed log.");
    assertThat(replay.sameAnswer()).isFalse();
  }

  @Test
  void aChangedConfigurationOrALateMessageIsSaidNotHidden() {
    model.replies("Kafka is a log.");
    SubAgent subAgent = started.subAgent();
    // a message placed before the first turn's but stored after the turn read the conversation
    mongo.insert(
        new SubAgentMessage(
            "late",
            subAgent.id(),
            subAgent.taskId(),
            subAgent.chatId(),
            0,
            "user",
            "Also MongoDB",
            List.of(),
            null,
            java.time.Instant.now(),
            List.of()));
    TurnReplay changed =
        new TurnReplay(
            mongo,
            new SubAgentConversations(mongo),
            AGENTS,
            model,
            TestModels.named("offline", "big"),
            new ConfigVersion("config-2"),
            Duration.ofSeconds(5));

    TurnReplay.Replay replay = changed.replay(started.task(), 1, null);

    assertThat(replay.inputChanges())
        .hasSize(2)
        .anySatisfy(c -> assertThat(c).contains("the turn read 2 messages; 3 are stored"))
        .anySatisfy(c -> assertThat(c).contains("configuration config-1 then, config-2 now"));
  }

  @Test
  void badTurnsAndModelsAreRefusedWithTheirReason() {
    TurnReplay replays = replays();
    Task task = started.task();

    assertThat(refusal(() -> replays.replay(task, 0, null)))
        .isEqualTo("400 BAD_REQUEST \"turns are numbered from 1; there is no turn 0\"");
    assertThat(refusal(() -> replays.replay(task, 3, null)))
        .isEqualTo("409 CONFLICT \"task " + task.id() + " has taken 2 model turn(s), not 3\"");
    assertThat(refusal(() -> replays.replay(task, 1, "gpt-9")))
        .startsWith("400 BAD_REQUEST \"unknown model 'gpt-9'");
    Started old =
        stored.startedTask(CHAT, "Research", TaskStatus.success, SubAgentStatus.completed, null);
    stored.append(old.subAgent(), "user", "Research", List.of(), null);
    stored.append(old.subAgent(), "assistant", "An old answer.", List.of(), null);
    assertThat(refusal(() -> replays.replay(old.task(), 1, null)))
        .contains("409 CONFLICT")
        .contains("stored before model turns kept their input");
    assertThat(model.requests()).as("no model was asked").isEmpty();
  }

  private TurnReplay replays() {
    return new TurnReplay(
        mongo,
        new SubAgentConversations(mongo),
        AGENTS,
        model,
        TestModels.named("offline", "big"),
        CONFIG,
        Duration.ofSeconds(5));
  }

  /** The input of a turn taken now, as agent-loop builds it from the whole conversation. */
  private TurnInput inputOfNextTurn() {
    return agentLoop.of(AGENTS.get("researcher"), conversation(), null).input();
  }

  private List<SubAgentMessage> conversation() {
    return new SubAgentConversations(mongo).messages(started.subAgent().id());
  }

  private static Map<String, Long> counts() {
    return Map.of(
        "messages",
        mongo.getCollection(Collections.SUB_AGENT_MESSAGES).countDocuments(),
        "tool calls",
        mongo.getCollection(Collections.SUB_AGENT_TOOL_CALLS).countDocuments(),
        "run events",
        mongo.getCollection(Collections.RUN_EVENTS).countDocuments(),
        "tasks",
        mongo.getCollection(Collections.TASKS).countDocuments());
  }

  private static String refusal(Runnable call) {
    try {
      call.run();
    } catch (ResponseStatusException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused");
  }
}
