package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.testing.SignedIn;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.UnreachableBroker;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** A chat's plans read and cancelled through the API, on a real MongoDB-protocol server. */
class PlanControllerTest {

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private Plans plans;
  private MockMvc http;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  @AfterEach
  void signOut() {
    SignedIn.signOut();
  }

  @BeforeEach
  void api() {
    database.clear();
    SignedIn.asLocalUser();
    plans = Stored.plans(mongo);
    PlanController controller =
        new PlanController(
            new ChatAccess(mongo),
            plans,
            new TaskCancellation(
                mongo, UnreachableBroker.outbox(mongo), new EventCodec(), new RunLedger(mongo)));
    http = MockMvcBuilders.standaloneSetup(controller).setControllerAdvice(new ApiErrors()).build();
  }

  @Test
  void showsAChatsPlansWithEachNodesStatusAndTask() throws Exception {
    Plan plan = runningPlan();

    http.perform(get("/api/chats/chat-1/plans"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$[0].id").value(plan.id()))
        .andExpect(jsonPath("$[0].status").value("running"))
        .andExpect(jsonPath("$[0].nodes[0].id").value("r1"))
        .andExpect(jsonPath("$[0].nodes[0].status").value("running"))
        .andExpect(jsonPath("$[0].nodes[0].taskId").value(Plans.taskId(plan.id(), "r1")))
        .andExpect(jsonPath("$[0].nodes[0].startedAt").exists())
        .andExpect(jsonPath("$[0].nodes[1].status").value("pending"))
        .andExpect(jsonPath("$[0].nodes[1].dependsOn[0]").value("r1"));
    http.perform(get("/api/plans/" + plan.id()))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.request").value("Write a report on Kafka"));
  }

  @Test
  void cancellingAPlanCancelsItsRunningTasksAndNoPendingNodeEverStarts() throws Exception {
    Plan plan = runningPlan();

    http.perform(post("/api/plans/" + plan.id() + "/cancel"))
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.status").value("cancelled"));

    assertThat(mongo.findById(Plans.taskId(plan.id(), "r1"), Task.class).status())
        .isEqualTo(TaskStatus.cancelled);
    Plan after = plans.find(plan.id()).orElseThrow();
    assertThat(after.status()).isEqualTo(PlanStatus.cancelled);
    assertThat(after.nodes())
        .extracting(PlanNode::id, PlanNode::status)
        .containsExactly(tuple("r1", PlanNodeStatus.cancelled), tuple("w", PlanNodeStatus.skipped));
    assertThat(mongo.findAll(Task.class)).hasSize(1);

    http.perform(post("/api/plans/" + plan.id() + "/cancel"))
        .andExpect(status().isConflict())
        .andExpect(
            jsonPath("$.detail").value("plan " + plan.id() + " has already ended: cancelled"));
  }

  @Test
  void anotherUsersPlanAndAnUnknownPlanAreNotThere() throws Exception {
    Plan plan = runningPlan();
    SignedIn.as("bob");

    http.perform(get("/api/plans/" + plan.id())).andExpect(status().isNotFound());
    http.perform(post("/api/plans/" + plan.id() + "/cancel")).andExpect(status().isNotFound());
    http.perform(get("/api/chats/chat-1/plans")).andExpect(status().isNotFound());
    http.perform(get("/api/plans/no-such-plan")).andExpect(status().isNotFound());
    assertThat(plans.find(plan.id()).orElseThrow().cancelRequested()).isFalse();
  }

  private Plan runningPlan() {
    mongo.insert(new Chat("chat-1", "t", Instant.now()));
    String planId = "plan-1";
    plans.create(
        Plan.start(
            planId,
            "chat-1",
            "message-1",
            "Write a report on Kafka",
            null,
            List.of(
                PlanNode.pending(planId, "r1", "researcher", "Research Kafka", List.of()),
                PlanNode.pending(planId, "w", "writer", "Write a report", List.of("r1"))),
            Instant.now()));
    return plans.advance(planId).orElseThrow();
  }
}
