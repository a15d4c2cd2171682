package dev.agentrt.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * A graph of agent tasks the orchestrator decided for a person's message, and how far it got. Its
 * nodes start as tasks once the nodes they depend on succeeded; {@link Plans} moves it on.
 *
 * @param id derived from the person's message
 * @param request the person's message, what the plan answers
 * @param model the model its tasks and its answer use (null: the agents' or the default)
 * @param nodes in the order the model gave them; never reordered, so a node's index names it in
 *     conditional updates
 * @param cancelRequested set once someone asked to cancel it: no pending node starts any more
 * @param answerId the chat message that answered it, once written
 * @param answering who writes its answer, until when ({@link Lease}); null before it ended
 * @param endedAt when it left {@code running}
 * @param routing the decision's confidence and reason, which its nodes' tasks carry
 */
@Document(Collections.PLANS)
public record Plan(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    String messageId,
    String request,
    @Nullable String model,
    PlanStatus status,
    List<PlanNode> nodes,
    boolean cancelRequested,
    @Nullable String answerId,
    @Nullable Lease answering,
    Instant createdAt,
    Instant updatedAt,
    @Nullable Instant endedAt,
    Task.@Nullable Routing routing) {

  public static final String ANSWERING = "answering";

  @PersistenceCreator
  public Plan {}

  /** A plan about to start: running, every node pending. */
  public static Plan start(
      String id,
      String chatId,
      String messageId,
      String request,
      @Nullable String model,
      List<PlanNode> nodes,
      Instant now) {
    return start(id, chatId, messageId, request, model, nodes, now, null);
  }

  /** A plan about to start, with the decision's routing for its nodes' tasks. */
  public static Plan start(
      String id,
      String chatId,
      String messageId,
      String request,
      @Nullable String model,
      List<PlanNode> nodes,
      Instant now,
      Task.@Nullable Routing routing) {
    return new Plan(
        id,
        chatId,
        messageId,
        request,
        model,
        PlanStatus.running,
        List.copyOf(nodes),
        false,
        null,
        null,
        now,
        now,
        null,
        routing);
  }

  public Optional<PlanNode> node(String nodeId) {
    return nodes.stream().filter(n -> n.id().equals(nodeId)).findFirst();
  }

  /** The nodes no other node depends on: what the plan was for. */
  public List<PlanNode> sinks() {
    return nodes.stream()
        .filter(n -> nodes.stream().noneMatch(other -> other.dependsOn().contains(n.id())))
        .toList();
  }
}
