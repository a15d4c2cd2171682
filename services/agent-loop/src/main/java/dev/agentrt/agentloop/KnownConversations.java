package dev.agentrt.agentloop;

import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows of the sub-agents whose turn it ended with tool calls: the sub-agent as
 * the turn read it and its conversation up to the answer. Their results wake the loop next, and
 * then only the messages after the answer are read; a result's wake need not read the sub-agent at
 * all ({@link AgentLoop#wake(String)}). Nothing here is trusted: messages are used only when they
 * and the ones read after them are the conversation without a gap, and a turn taken from what is
 * known here is taken only while the sub-agent is still active, free, and has just those messages.
 *
 * <p>A wake takes the entry it uses (one whose results call for nothing yet puts it back, with what
 * it read); at most {@link #MAX} are kept, the oldest dropped first (a sub-agent cancelled while
 * its tools ran is never woken again). A conversation's messages never change once stored, but for
 * their outboxes, which the loop does not read.
 */
final class KnownConversations {

  /** The most sub-agents known at once. */
  static final int MAX = 1_000;

  /** A sub-agent as a turn of this instance left it: active, no turn, and its messages. */
  record Known(SubAgent subAgent, List<SubAgentMessage> messages) {

    long lastSeq() {
      return messages.isEmpty() ? 0 : messages.getLast().seq();
    }

    /**
     * Whether the message with this id is among those known (false for null): looked at, as what is
     * kept holds only messages a turn answered or a wake found calling for nothing yet.
     */
    boolean has(@Nullable String messageId) {
      if (messageId == null) {
        return false;
      }
      for (int i = messages.size() - 1; i >= 0; i--) {
        if (messages.get(i).id().equals(messageId)) {
          return true;
        }
      }
      return false;
    }

    /**
     * The conversation with {@code newer} after what is known, if they follow on without a gap:
     * else whether a message is missing, or only not stored yet, is not known from them.
     */
    Optional<ConversationState> with(List<SubAgentMessage> newer) {
      long next = lastSeq() + 1;
      for (SubAgentMessage message : newer) {
        if (message.seq() != next++) {
          return Optional.empty();
        }
      }
      List<SubAgentMessage> all = new ArrayList<>(messages.size() + newer.size());
      all.addAll(messages);
      all.addAll(newer);
      return Optional.of(new ConversationState(all));
    }

    /** The sub-agent as known, with the messages of {@code conversation}. */
    SubAgent counting(ConversationState conversation) {
      SubAgent s = subAgent;
      return new SubAgent(
          s.id(),
          s.taskId(),
          s.chatId(),
          s.agent(),
          SubAgentStatus.active,
          conversation.lastSeq(),
          null,
          s.createdAt(),
          s.updatedAt(),
          s.deadline(),
          s.settings());
    }
  }

  /**
   * The message an event carries ({@link SubAgentMessageAdded#message}), placed at {@code seq}: a
   * place nothing confirmed yet, which only a write conditioned on the conversation's count can.
   */
  static SubAgentMessage carried(SubAgentMessageAdded added, long seq) {
    SubAgentMessageAdded.Carried message = added.message();
    return new SubAgentMessage(
        added.messageId(),
        added.subAgentId(),
        added.taskId(),
        added.chatId(),
        seq,
        added.role(),
        message.content(),
        List.of(),
        message.toolCallId(),
        stored(added.occurredAt()),
        List.of());
  }

  /**
   * The sub-agent an instruction's event says agent-init made ({@link SubAgentMessageAdded#start}),
   * with its system prompt, the message before the instruction: as unconfirmed as {@link #carried},
   * never kept.
   */
  static Known started(SubAgentMessageAdded added) {
    SubAgentMessageAdded.Start start = added.start();
    Instant at = stored(added.occurredAt());
    SubAgent subAgent =
        new SubAgent(
            added.subAgentId(),
            added.taskId(),
            added.chatId(),
            start.agent(),
            SubAgentStatus.active,
            1,
            null,
            at,
            at,
            null,
            new SubAgent.Settings(
                start.model(),
                start.limits() == null ? null : ChatLimits.of(start.limits()),
                start.rootTaskId(),
                start.callerDeadline(),
                start.usageApart()));
    SubAgentMessage systemPrompt =
        new SubAgentMessage(
            start.systemPromptId(),
            added.subAgentId(),
            added.taskId(),
            added.chatId(),
            1,
            SubAgentMessage.SYSTEM,
            start.systemPrompt(),
            List.of(),
            null,
            at,
            List.of());
    return new Known(subAgent, List.of(systemPrompt));
  }

  /** The time as MongoDB stores it: a message's {@code createdAt} read back. */
  private static Instant stored(Instant at) {
    return at.truncatedTo(ChronoUnit.MILLIS);
  }

  private final SubAgentConversations conversations;
  private final Map<String, Known> known =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
              return size() > MAX;
            }
          });

  KnownConversations(SubAgentConversations conversations) {
    this.conversations = conversations;
  }

  /**
   * Keeps what a turn of the sub-agent ended with: its conversation, without a gap, then the
   * answer; kept only if the answer follows on.
   */
  void keep(SubAgent subAgent, ConversationState conversation, SubAgentMessage answer) {
    if (answer.seq() != conversation.lastSeq() + 1
        || conversation.messages().size() != conversation.lastSeq()) {
      return;
    }
    List<SubAgentMessage> messages = new ArrayList<>(conversation.messages());
    messages.add(answer);
    known.put(subAgent.id(), new Known(subAgent, messages));
  }

  /**
   * What is known of the sub-agent, forgotten here until a wake puts it back ({@link
   * #keep(Known)}).
   */
  @Nullable Known take(String subAgentId) {
    return known.remove(subAgentId);
  }

  /** Puts back what a wake used and left as it was, with the messages it read since. */
  void keep(Known again) {
    known.put(again.subAgent().id(), again);
  }

  /** The messages after what is known of the sub-agent: one read of what is new. */
  List<SubAgentMessage> newer(Known what) {
    return conversations.messagesAfter(what.subAgent().id(), what.lastSeq());
  }

  /**
   * The sub-agent's conversation, as read just now: from what is known and the messages after it
   * when together they are its {@code messageCount} messages, else read whole.
   */
  ConversationState of(SubAgent subAgent) {
    Known what = take(subAgent.id());
    if (what != null && what.lastSeq() <= subAgent.messageCount()) {
      // What is known runs from 1 without a gap (keep), the newer messages follow on (with).
      Optional<ConversationState> conversation = what.with(newer(what));
      if (conversation.isPresent() && conversation.get().lastSeq() == subAgent.messageCount()) {
        return conversation.get();
      }
    }
    return new ConversationState(conversations.messages(subAgent.id()));
  }
}
