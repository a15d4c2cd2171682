package dev.agentrt.orchestrator.decision;

import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.ToolCall;
import java.util.List;
import java.util.Optional;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/**
 * What a person's message led to, found by the ids its decision derives from the message's id: the
 * orchestrator's direct answer (or apology), the task it started or woke (and the task that
 * re-routed it, should it have failed), or the plan it started. Nothing is found while the message
 * awaits its decision.
 */
public final class MessageOutcomes {

  /** Purposes of the ids derived from the person's message. */
  static final String ANSWER = "answer";

  static final String TASK = "task";
  static final String FOLLOW_UP = "follow-up";
  static final String PLAN = "plan";

  private final MongoTemplate mongo;

  public MessageOutcomes(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  /** The orchestrator's own answer to the message, if it answered it directly. */
  public Optional<ChatMessage> directAnswer(String messageId) {
    return Optional.ofNullable(mongo.findById(Ids.derived(messageId, ANSWER), ChatMessage.class));
  }

  /** The answer of the plan the message started, once its last node ended and it was written. */
  public Optional<ChatMessage> planAnswer(String messageId) {
    Plan plan = mongo.findById(Ids.derived(messageId, PLAN), Plan.class);
    return plan == null || plan.answerId() == null
        ? Optional.empty()
        : Optional.ofNullable(mongo.findById(plan.answerId(), ChatMessage.class));
  }

  /**
   * The tasks whose answer in the chat answers a message that went to this task: the task itself,
   * and the task that re-routes it to the fallback agent should it fail (the finalizer writes that
   * task's answer instead of the failure's).
   */
  public static List<String> answeringTasks(String taskId) {
    return List.of(taskId, Task.rerouteId(taskId));
  }

  /**
   * The id of the task the message started, or of the task whose sub-agent it woke (a follow-up,
   * the answer to a sub-agent's question, or a decision on a call that awaited approval).
   */
  public Optional<String> taskId(String messageId) {
    Task started = mongo.findById(Ids.derived(messageId, TASK), Task.class);
    if (started != null) {
      return Optional.of(started.id());
    }
    ToolCall decided =
        mongo.findOne(
            Query.query(Criteria.where(ToolCall.DECISION + ".messageId").is(messageId)),
            ToolCall.class);
    if (decided != null) {
      return Optional.of(decided.taskId());
    }
    for (String purpose : List.of(ANSWER, FOLLOW_UP)) {
      SubAgentMessage sent = mongo.findById(Ids.derived(messageId, purpose), SubAgentMessage.class);
      if (sent != null) {
        SubAgent woken = mongo.findById(sent.subAgentId(), SubAgent.class);
        if (woken != null) {
          return Optional.of(woken.taskId());
        }
      }
    }
    return Optional.empty();
  }
}
