package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The official {@code openai} npm client against the orchestrator's OpenAI-compatible API ({@code
 * src/test/js/openai-client.mjs}): a completion with and without streaming, a conversation
 * continued by resending its history, and an unknown model refused as the client expects.
 */
class OpenAiNodeClientIT {

  @Test
  void theOfficialClientCompletesStreamsAndContinuesAConversation() {
    NodeScript.assumeInstalled("openai");
    String baseUrl = EmbeddedStack.get().services.baseUrl("orchestrator");

    NodeScript.Result result = NodeScript.run(Duration.ofMinutes(5), "openai-client.mjs", baseUrl);

    assertThat(result.exitStatus()).as(result.output()).isZero();
    assertThat(result.output()).contains("OK");
  }
}
