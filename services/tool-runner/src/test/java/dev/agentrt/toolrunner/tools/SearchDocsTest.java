package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SearchDocsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path scratch;
  private DocsFixture docs;

  @BeforeEach
  void corpus() {
    docs =
        new DocsFixture(scratch)
            .write(
                "kafka.md",
                """
                # Kafka topics

                Every event is published on a topic, keyed so that one conversation stays in order.
                """)
            .write(
                "mongodb.md",
                """
                # MongoDB

                Each document carries an outbox; the relay publishes what is left to Kafka.
                """)
            .write(
                "guides/agents.md",
                """
                # Agents

                An agent is declared in YAML with its tools and a system prompt.
                """)
            .write("notes.txt", "kafka kafka kafka, but not markdown");
  }

  private List<SearchDocs.Hit> search(String query, int limit) {
    return new SearchDocs(docs.folder()).search(query, limit);
  }

  @Test
  void ranksATitleHitAboveABodyHitAndLeavesOutDocumentsWithoutHits() {
    List<SearchDocs.Hit> hits = search("Kafka", 5);

    assertThat(hits)
        .extracting(SearchDocs.Hit::path, SearchDocs.Hit::score)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("docs/kafka.md", 3),
            org.assertj.core.groups.Tuple.tuple("docs/mongodb.md", 1));
  }

  @Test
  void scoresEachDistinctQueryWordOnceIgnoringCaseAndFillerWords() {
    List<SearchDocs.Hit> hits = search("what is the OUTBOX of the relay, the relay?", 5);

    assertThat(hits).extracting(SearchDocs.Hit::path).containsExactly("docs/mongodb.md");
    assertThat(hits.getFirst().score()).isEqualTo(2);
  }

  @Test
  void matchesWholeWordsWithOrWithoutAPluralS() {
    assertThat(search("topic", 5))
        .extracting(SearchDocs.Hit::path)
        .containsExactly("docs/kafka.md");
    assertThat(search("documents", 5))
        .extracting(SearchDocs.Hit::path)
        .containsExactly("docs/mongodb.md");
    assertThat(search("kaf", 5)).isEmpty();
  }

  @Test
  void findsDocumentsInSubfoldersAndShowsPathsFromTheRootsParent() {
    assertThat(search("yaml prompt", 5))
        .singleElement()
        .satisfies(
            hit -> {
              assertThat(hit.path()).isEqualTo("docs/guides/agents.md");
              assertThat(hit.title()).isEqualTo("Agents");
              assertThat(hit.score()).isEqualTo(2);
            });
  }

  @Test
  void aDocumentWithoutAHeadingIsTitledByItsFileName() {
    docs.write("untitled.md", "Just some words about partitions.");

    assertThat(search("partitions", 5))
        .extracting(SearchDocs.Hit::title)
        .containsExactly("untitled.md");
  }

  @Test
  void theSnippetIsAboutTwoHundredCharactersAroundTheFirstHitInTheBody() {
    String filler = "lorem ipsum dolor sit amet ".repeat(40);
    docs.write("long.md", "# Long\n\n" + filler + "the word zeppelin appears here. " + filler);

    String snippet = search("zeppelin", 5).getFirst().snippet();

    assertThat(snippet).contains("zeppelin").startsWith("…").endsWith("…");
    assertThat(snippet.length()).isBetween(150, 203);
    assertThat(snippet.indexOf("zeppelin")).isBetween(40, 80);
  }

  @Test
  void aTitleOnlyHitShowsTheBeginningOfTheBody() {
    docs.write("zebra.md", "# Zebra\n\nNothing   else\nhere.\n");

    assertThat(search("zebra", 5).getFirst().snippet()).isEqualTo("Nothing else here.");
  }

  @Test
  void returnsAtMostLimitResultsBestFirstAndFiveByDefault() {
    IntStream.range(0, 7)
        .forEach(
            i -> docs.write("many/doc-" + i + ".md", "# Doc " + i + "\n\nshared " + "x".repeat(i)));
    docs.write("many/best.md", "# Shared\n\nshared");

    assertThat(search("shared", 3))
        .extracting(SearchDocs.Hit::path)
        .containsExactly("docs/many/best.md", "docs/many/doc-0.md", "docs/many/doc-1.md");
    JsonNode defaultLimit =
        JSON.readTree(
            new SearchDocs(docs.folder()).execute(JSON.readTree("{\"query\":\"shared\"}")));
    assertThat(defaultLimit.get("results").size()).isEqualTo(SearchDocs.DEFAULT_LIMIT);
  }

  @Test
  void answersWithPathTitleSnippetAndScoreAsJson() {
    Toolbox toolbox =
        Toolbox.of(BuiltIns.docs(docs.root), ToolSettings.defaults(Duration.ofSeconds(30)));

    ToolOutcome outcome = toolbox.run("search_docs", "{\"query\":\"kafka topics\",\"limit\":1}");

    assertThat(outcome).isInstanceOf(ToolOutcome.Success.class);
    assertThat(JSON.readTree(outcome.json()))
        .isEqualTo(
            JSON.readTree(
                """
                {"results":[{"path":"docs/kafka.md","title":"Kafka topics",
                  "snippet":"Every event is published on a topic, keyed so that one conversation stays in order.",
                  "score":6}]}"""));
  }

  @Test
  void findsNothingWhenTheRootIsMissing() {
    assertThat(new SearchDocs(new DocsFolder(scratch.resolve("absent"))).search("kafka", 5))
        .isEmpty();
  }
}
