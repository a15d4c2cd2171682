package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.decision.WaitingQuestions;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Task;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * One endpoint for everything a person tells a running chat besides a new message, {@code POST
 * /api/chats/{id}/feedback}, by {@code type}:
 *
 * <ul>
 *   <li>{@code approval} {@code {toolCallId, approved, reason?}}: decides a call that awaits
 *       approval ({@link ToolCallApprovals}); a call decided before, or never gated, is {@code
 *       409}.
 *   <li>{@code clarification} / {@code information} {@code {text}}: the answer to the chat's
 *       pending {@code ask_user} question, posted as the person's message, which the orchestrator
 *       routes to the sub-agent that asked; {@code 409} when no question waits.
 *   <li>{@code selection} {@code {option}}: the answer to a pending question that offers options
 *       ({@code ask_user} with {@code options}), one of them exactly; {@code 409} when no such
 *       question waits, {@code 400} for an option it does not offer.
 *   <li>{@code guidance} {@code {taskId, text}}: steers the task's sub-agent ({@link Guidance}).
 * </ul>
 *
 * Only the chat's owner gives feedback (as for posting messages); another's chat is {@code 404}.
 * {@code POST /v1/orchestration/{id}/feedback} takes the same, for clients of the OpenAI-compatible
 * API ({@link OpenAiFeedbackController}).
 */
@RestController
class FeedbackController {

  static final String APPROVAL = "approval";
  static final String CLARIFICATION = "clarification";
  static final String INFORMATION = "information";
  static final String GUIDANCE = "guidance";
  static final String SELECTION = "selection";

  /** The feedback; which fields it needs depends on its type. */
  record Feedback(
      @NotBlank String type,
      @Nullable String toolCallId,
      @Nullable Boolean approved,
      @Nullable @Size(max = 2000) String reason,
      @Nullable @Size(max = ChatController.MAX_CONTENT_LENGTH) String text,
      @Nullable String taskId,
      @Nullable @Size(max = 1000) String option) {}

  /**
   * @param outcome {@code approved}, {@code rejected}, {@code answered} or {@code guided}
   * @param id the person's message (an answer) or the sub-agent's message (guidance); the call (an
   *     approval)
   */
  record Accepted(String type, String outcome, String id) {}

  private final ChatAccess access;
  private final Chats chats;
  private final ToolCallApprovals approvals;
  private final WaitingQuestions questions;
  private final Guidance guidance;

  FeedbackController(
      ChatAccess access,
      Chats chats,
      ToolCallApprovals approvals,
      WaitingQuestions questions,
      Guidance guidance) {
    this.access = access;
    this.chats = chats;
    this.approvals = approvals;
    this.questions = questions;
    this.guidance = guidance;
  }

  @PostMapping("/api/chats/{chatId}/feedback")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Accepted feedback(@PathVariable String chatId, @Valid @RequestBody Feedback body) {
    Chat chat =
        access
            .writable(chatId)
            .orElseThrow(
                () ->
                    new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId));
    return switch (body.type()) {
      case APPROVAL -> approval(chat, body);
      case CLARIFICATION, INFORMATION -> answer(chat, body);
      case SELECTION -> selection(chat, body);
      case GUIDANCE -> guidance(chat, body);
      default ->
          throw badRequest(
              "type must be one of approval, clarification, information, selection, guidance;"
                  + " not '"
                  + body.type()
                  + "'");
    };
  }

  private Accepted approval(Chat chat, Feedback body) {
    if (body.toolCallId() == null || body.toolCallId().isBlank() || body.approved() == null) {
      throw badRequest("an approval needs toolCallId and approved (true or false)");
    }
    return switch (approvals.decide(
        chat.id(), body.toolCallId(), body.approved(), body.reason(), access.user())) {
      case ToolCallApprovals.Outcome.Decided decided ->
          new Accepted(APPROVAL, body.approved() ? "approved" : "rejected", decided.call().id());
      case ToolCallApprovals.Outcome.NotFound notFound ->
          throw new ResponseStatusException(
              HttpStatus.NOT_FOUND, "no tool call " + body.toolCallId() + " in this chat");
      case ToolCallApprovals.Outcome.NotAwaiting notAwaiting ->
          throw new ResponseStatusException(
              HttpStatus.CONFLICT,
              "tool call "
                  + body.toolCallId()
                  + " awaits no approval: it is "
                  + notAwaiting.status()
                  + " (decided already, or never gated)");
    };
  }

  private Accepted answer(Chat chat, Feedback body) {
    String text = text(body);
    if (questions.latest(chat.id()).isEmpty()) {
      throw new ResponseStatusException(
          HttpStatus.CONFLICT, "no question waits for an answer in this chat");
    }
    return new Accepted(body.type(), "answered", chats.postUserMessage(chat.id(), text, null).id());
  }

  private Accepted selection(Chat chat, Feedback body) {
    if (body.option() == null || body.option().isBlank()) {
      throw badRequest("a selection needs the option picked");
    }
    WaitingQuestions.WaitingQuestion question =
        questions
            .latest(chat.id())
            .orElseThrow(
                () ->
                    new ResponseStatusException(
                        HttpStatus.CONFLICT, "no question waits for an answer in this chat"));
    if (question.options().isEmpty()) {
      throw new ResponseStatusException(
          HttpStatus.CONFLICT, "the question waiting offers no options: send a clarification");
    }
    String option = body.option().strip();
    if (!question.options().contains(option)) {
      throw badRequest("'" + option + "' is not one of the options " + question.options());
    }
    return new Accepted(SELECTION, "answered", chats.postUserMessage(chat.id(), option, null).id());
  }

  private Accepted guidance(Chat chat, Feedback body) {
    String text = text(body);
    if (body.taskId() == null || body.taskId().isBlank()) {
      throw badRequest("guidance needs the taskId of the task to steer");
    }
    Task task =
        access
            .writableTask(body.taskId())
            .filter(t -> t.chatId().equals(chat.id()))
            .orElseThrow(
                () ->
                    new ResponseStatusException(
                        HttpStatus.NOT_FOUND, "no task " + body.taskId() + " in this chat"));
    return switch (guidance.guide(task, text, access.user())) {
      case Guidance.Result.Sent sent -> new Accepted(GUIDANCE, "guided", sent.message().id());
      case Guidance.Result.Refused refused ->
          throw new ResponseStatusException(HttpStatus.CONFLICT, refused.reason());
    };
  }

  private static String text(Feedback body) {
    if (body.text() == null || body.text().isBlank()) {
      throw badRequest(body.type() + " needs a non-blank text");
    }
    return body.text();
  }

  private static ResponseStatusException badRequest(String reason) {
    return new ResponseStatusException(HttpStatus.BAD_REQUEST, reason);
  }
}
