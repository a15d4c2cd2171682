package dev.agentrt.model.offline;

import static dev.agentrt.model.ModelMessage.assistant;
import static dev.agentrt.model.ModelMessage.system;
import static dev.agentrt.model.ModelMessage.tool;
import static dev.agentrt.model.ModelMessage.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResearcherTest {

  private static final ToolSpec ASK_USER = new ToolSpec("ask_user", "Ask the person.", "{}");
  private static final ToolSpec SEARCH_DOCS = new ToolSpec("search_docs", "Search.", "{}");
  private static final ToolSpec READ_DOC = new ToolSpec("read_doc", "Read.", "{}");
  private static final List<ToolSpec> ALL_TOOLS = List.of(ASK_USER, SEARCH_DOCS, READ_DOC);

  private static final String KAFKA_DOC =
      "# Kafka\n\nKafka is a distributed log.\nProducers append records to topics. Consumers read"
          + " them in order.\n";
  private static final String MONGODB_DOC =
      "# MongoDB\n\nMongoDB stores JSON-like documents. It has no joins! Replica sets keep copies.";

  private final OfflineModel model = new OfflineModel();
  private final List<ModelMessage> messages =
      new ArrayList<>(List.of(system("You are a careful researcher.")));

  @Test
  void researchOfTwoSubjectsSearchesBothInOneTurn() {
    messages.add(user("Research Kafka and MongoDB"));

    ModelReply reply = turn();

    assertThat(reply.content()).isNull();
    assertThat(reply.finishReason()).isEqualTo("tool_calls");
    assertThat(reply.toolCalls())
        .containsExactly(
            new ModelToolCall("call_0_0", "search_docs", "{\"query\":\"Kafka\"}"),
            new ModelToolCall("call_0_1", "search_docs", "{\"query\":\"MongoDB\"}"));
  }

  @Test
  void fullResearchOfTwoSubjectsSearchesThenReadsThenAnswersNamingTheSources() {
    messages.add(user("Research Kafka and MongoDB"));
    ModelReply searches = turn();
    record(
        searches,
        search("docs/kafka.md", "Kafka", "docs/streams.md", "Streams"),
        search("docs/mongodb.md", "MongoDB"));

    ModelReply reads = turn();
    assertThat(reads.toolCalls())
        .containsExactly(
            new ModelToolCall("call_1_0", "read_doc", "{\"path\":\"docs/kafka.md\"}"),
            new ModelToolCall("call_1_1", "read_doc", "{\"path\":\"docs/mongodb.md\"}"));
    record(
        reads,
        doc("docs/kafka.md", "Kafka", KAFKA_DOC),
        doc("docs/mongodb.md", "MongoDB", MONGODB_DOC));

    ModelReply answer = turn();
    assertThat(answer.toolCalls()).isEmpty();
    assertThat(answer.finishReason()).isEqualTo("stop");
    assertThat(answer.content())
        .isEqualTo(
            """
            Here is what I found about Kafka and MongoDB.

            **Kafka** (docs/kafka.md): Kafka is a distributed log. Producers append records to \
            topics.

            **MongoDB** (docs/mongodb.md): MongoDB stores JSON-like documents. It has no joins!

            Sources: docs/kafka.md, docs/mongodb.md""");
  }

  @Test
  void requestWithoutSubjectAsksTheUserWhatToResearch() {
    messages.add(user("Research"));

    assertThat(turn().toolCalls())
        .containsExactly(
            new ModelToolCall(
                "call_0_0", "ask_user", "{\"question\":\"What should I research?\"}"));
  }

  @Test
  void answerToTheQuestionIsSearchedFor() {
    messages.add(user("Research it"));
    ModelReply question = turn();
    record(question, "Kafka");

    assertThat(turn().toolCalls())
        .containsExactly(new ModelToolCall("call_1_0", "search_docs", "{\"query\":\"Kafka\"}"));
  }

  @Test
  void followUpAfterAFinalAnswerSearchesForTheNewSubject() {
    messages.add(user("Research Kafka"));
    record(turn(), search("docs/kafka.md", "Kafka"));
    record(turn(), doc("docs/kafka.md", "Kafka", KAFKA_DOC));
    messages.add(assistant(turn().content(), List.of()));
    messages.add(user("Also MongoDB"));

    ModelReply searches = turn();
    assertThat(searches.toolCalls())
        .containsExactly(new ModelToolCall("call_3_0", "search_docs", "{\"query\":\"MongoDB\"}"));
    record(searches, search("docs/mongodb.md", "MongoDB"));
    record(turn(), doc("docs/mongodb.md", "MongoDB", MONGODB_DOC));

    assertThat(turn().content())
        .startsWith("Here is what I found about MongoDB.")
        .endsWith("Sources: docs/mongodb.md")
        .doesNotContain("docs/kafka.md");
  }

  @Test
  void searchesThatFindNothingEndWithAnAnswerSayingSo() {
    messages.add(user("Research Kafka and Zookeeper"));
    record(turn(), search(), "{\"results\":[]}");

    ModelReply answer = turn();

    assertThat(answer.toolCalls()).isEmpty();
    assertThat(answer.content())
        .isEqualTo("I could not find anything about Kafka and Zookeeper in the documents.");
  }

  @Test
  void sameTopHitOfTwoSearchesIsReadOnce() {
    messages.add(user("Compare Kafka vs Pulsar"));
    record(
        turn(), search("docs/messaging.md", "Messaging"), search("docs/messaging.md", "Messaging"));

    assertThat(turn().toolCalls())
        .containsExactly(
            new ModelToolCall("call_1_0", "read_doc", "{\"path\":\"docs/messaging.md\"}"));
  }

  @Test
  void toolErrorsAreMentionedInTheAnswerInsteadOfFailing() {
    messages.add(user("Research Kafka and MongoDB"));
    record(turn(), search("docs/kafka.md", "Kafka"), search("docs/mongodb.md", "MongoDB"));
    record(
        turn(),
        doc("docs/kafka.md", "Kafka", KAFKA_DOC),
        "{\"error_type\":\"not_found\",\"message\":\"no such document\"}");

    assertThat(turn().content())
        .isEqualTo(
            """
            Here is what I found about Kafka and MongoDB.

            **Kafka** (docs/kafka.md): Kafka is a distributed log. Producers append records to \
            topics.

            Could not read docs/mongodb.md: no such document

            Sources: docs/kafka.md""");
  }

  @Test
  void readsThatAllFailEndWithAnAnswerSayingSo() {
    messages.add(user("Research Kafka"));
    record(turn(), search("docs/kafka.md", "Kafka"));
    record(turn(), "{\"error_type\":\"io\",\"message\":\"disk error\"}");

    assertThat(turn().content())
        .isEqualTo(
            """
            I could not read the documents about Kafka.

            Could not read docs/kafka.md: disk error""");
  }

  @Test
  void failedSearchesAreMentionedWhenNothingWasFound() {
    messages.add(user("Research Kafka"));
    record(turn(), "{\"error_type\":\"timeout\",\"message\":\"search took too long\"}");

    assertThat(turn().content())
        .isEqualTo(
            """
            I could not find anything about Kafka in the documents.

            Could not search for "Kafka": search took too long""");
  }

  @Test
  void toolsThatAreNotOfferedAreNotCalled() {
    messages.add(user("Research"));
    assertThat(turn(List.of(SEARCH_DOCS, READ_DOC)).content()).isEqualTo("What should I research?");

    messages.set(1, user("Research Kafka"));
    assertThat(turn(List.of(ASK_USER)).content())
        .isEqualTo("I cannot search the documents: I was not given the search_docs tool.");

    record(turn(), search("docs/kafka.md", "Kafka"));
    assertThat(turn(List.of(ASK_USER, SEARCH_DOCS)).content())
        .isEqualTo(
            "I found docs/kafka.md but cannot read them: I was not given the read_doc tool.");
  }

  @Test
  void sameRequestTwiceGetsTheSameReply() {
    messages.add(user("Research Kafka and MongoDB"));

    ModelReply first = turn();
    ModelReply second = turn();

    assertThat(second.content()).isEqualTo(first.content());
    assertThat(second.toolCalls()).isEqualTo(first.toolCalls());
    assertThat(second.usage()).isEqualTo(first.usage());
    assertThat(second.finishReason()).isEqualTo(first.finishReason());
  }

  @Test
  void usageCountsAboutFourCharactersPerToken() {
    messages.add(user("Research Kafka"));

    ModelReply reply = turn();

    int promptCharacters = "You are a careful researcher.".length() + "Research Kafka".length();
    int completionCharacters = "search_docs".length() + "{\"query\":\"Kafka\"}".length();
    assertThat(reply.usage().promptTokens()).isEqualTo((promptCharacters + 3) / 4);
    assertThat(reply.usage().completionTokens()).isEqualTo((completionCharacters + 3) / 4);
    assertThat(reply.latencyMs()).isNotNegative();
  }

  private ModelReply turn() {
    return turn(ALL_TOOLS);
  }

  private ModelReply turn(List<ToolSpec> tools) {
    return model.complete(new ModelRequest(Purpose.AGENT_TURN, List.copyOf(messages), tools, null));
  }

  /** Adds the reply's assistant message and one tool message per call, with these results. */
  private void record(ModelReply reply, String... results) {
    assertThat(reply.toolCalls()).hasSize(results.length);
    messages.add(assistant(reply.content(), reply.toolCalls()));
    for (int i = 0; i < results.length; i++) {
      messages.add(tool(reply.toolCalls().get(i).id(), results[i]));
    }
  }

  /** A search_docs result: hits given as path, title pairs, best first. */
  private static String search(String... pathsAndTitles) {
    List<String> hits = new ArrayList<>();
    for (int i = 0; i < pathsAndTitles.length; i += 2) {
      hits.add(
          "{\"path\":\"%s\",\"title\":\"%s\",\"snippet\":\"...\",\"score\":%d}"
              .formatted(pathsAndTitles[i], pathsAndTitles[i + 1], 10 - i));
    }
    return "{\"results\":[" + String.join(",", hits) + "]}";
  }

  private static String doc(String path, String title, String content) {
    return Json.object("path", path, "title", title, "content", content);
  }
}
