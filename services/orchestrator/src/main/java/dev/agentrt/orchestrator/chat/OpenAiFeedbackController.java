package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.http.OpenAiCompatible;
import jakarta.validation.Valid;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /v1/orchestration/{chatId}/feedback}: the feedback endpoint ({@link
 * FeedbackController}) for clients of the OpenAI-compatible API, the same feedback with the same
 * outcomes, its refusals in OpenAI's error shape ({@link OpenAiCompatible}).
 */
@RestController
@OpenAiCompatible
class OpenAiFeedbackController {

  private final FeedbackController feedback;

  OpenAiFeedbackController(FeedbackController feedback) {
    this.feedback = feedback;
  }

  @PostMapping("/v1/orchestration/{chatId}/feedback")
  @ResponseStatus(HttpStatus.ACCEPTED)
  FeedbackController.Accepted feedback(
      @PathVariable String chatId, @Valid @RequestBody FeedbackController.Feedback body) {
    return feedback.feedback(chatId, body);
  }
}
