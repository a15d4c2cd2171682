package dev.agentrt.model.offline;

import static dev.agentrt.model.ModelMessage.system;
import static dev.agentrt.model.ModelMessage.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The writer: a report with a section per subject from its plan node's material, no tools. */
class WriterTest {

  private final OfflineModel model = new OfflineModel();

  @Test
  void writesASectionPerSubjectWithTheSourcesItsMaterialNamed() {
    String instruction =
        """
        Write a report on Kafka and Redis

        Results of the tasks this one depends on, one section each:

        ## research-1 (researcher): Research Kafka

        Here is what I found about Kafka.

        **Kafka** (docs/kafka.md): Kafka is a log.

        Sources: docs/kafka.md

        ## research-2 (researcher): Research Redis

        Here is what I found about Redis.

        **Redis** (docs/redis.md): Redis is a cache.

        Sources: docs/redis.md, docs/cache.md""";

    ModelReply reply = turn(instruction);

    assertThat(reply.toolCalls()).isEmpty();
    assertThat(reply.content())
        .isEqualTo(
            """
            # Report on Kafka and Redis

            ## Kafka

            Here is what I found about Kafka.

            **Kafka** (docs/kafka.md): Kafka is a log.

            Sources: docs/kafka.md

            ## Redis

            Here is what I found about Redis.

            **Redis** (docs/redis.md): Redis is a cache.

            Sources: docs/redis.md, docs/cache.md""");
  }

  @Test
  void saysSoWhenItHasNoMaterial() {
    assertThat(turn("Write a report on Kafka").content())
        .isEqualTo("I have no material to write the report from.");
  }

  private ModelReply turn(String instruction) {
    return model.complete(
        new ModelRequest(
            Purpose.AGENT_TURN,
            List.of(system("You are a writer."), user(instruction)),
            List.of(),
            null));
  }
}
