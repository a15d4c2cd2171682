package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ReadDocTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path scratch;
  private DocsFixture docs;
  private Toolbox toolbox;

  @BeforeEach
  void corpus() {
    docs =
        new DocsFixture(scratch)
            .write("kafka.md", "# Kafka\n\nTopics and keys.\n")
            .write("notes.txt", "not a document")
            .writeAt(scratch.resolve("pom.xml"), "<project/>")
            .writeAt(scratch.resolve("secret.md"), "# Secret\n\nOutside the root.\n");
    toolbox = Toolbox.of(BuiltIns.docs(docs.root), ToolSettings.defaults(Duration.ofSeconds(30)));
  }

  private JsonNode read(String path) {
    ToolOutcome outcome =
        toolbox.run("read_doc", JSON.writeValueAsString(java.util.Map.of("path", path)));
    return JSON.readTree(outcome.json());
  }

  @Test
  void readsADocumentByThePathSearchShowsOrRelativeToTheRoot() {
    JsonNode expected =
        JSON.readTree(
            """
            {"path":"docs/kafka.md","title":"Kafka","content":"# Kafka\\n\\nTopics and keys.\\n",
             "truncated":false}""");

    assertThat(read("docs/kafka.md")).isEqualTo(expected);
    assertThat(read("kafka.md")).isEqualTo(expected);
    assertThat(read("./docs//kafka.md")).isEqualTo(expected);
  }

  @Test
  void capsALongDocumentAndSaysSo() {
    docs.write("long.md", "# Long\n\n" + "x".repeat(20_000));

    JsonNode page = read("docs/long.md");

    assertThat(page.get("content").asString()).hasSize(ReadDoc.MAX_CHARS);
    assertThat(page.get("truncated").asBoolean()).isTrue();
  }

  @Test
  void refusesPathsThatClimbOutOfTheRoot() {
    for (String path :
        new String[] {"../pom.xml", "docs/../../x", "docs/../secret.md", "..\\pom.xml"}) {
      assertThat(read(path).get("error_type").asString()).as(path).isEqualTo("invalid_arguments");
      assertThat(read(path).get("message").asString()).as(path).contains("'..'");
    }
  }

  @Test
  void refusesAbsolutePaths() {
    for (String path :
        new String[] {"/etc/passwd", docs.root.resolve("kafka.md").toString(), "C:\\x.md"}) {
      assertThat(read(path).get("error_type").asString()).as(path).isEqualTo("invalid_arguments");
    }
  }

  @Test
  void refusesASymlinkInsideTheRootThatPointsOutside() throws IOException {
    Files.createSymbolicLink(docs.root.resolve("leak.md"), scratch.resolve("secret.md"));
    Files.createDirectories(scratch.resolve("elsewhere"));
    docs.writeAt(scratch.resolve("elsewhere/other.md"), "# Other\n\nOutside too.\n");
    Files.createSymbolicLink(docs.root.resolve("linked"), scratch.resolve("elsewhere"));

    assertThat(read("docs/leak.md").get("error_type").asString()).isEqualTo("not_found");
    assertThat(read("docs/linked/other.md").get("error_type").asString()).isEqualTo("not_found");
    assertThat(new SearchDocs(docs.folder()).search("outside secret other", 10)).isEmpty();
  }

  @Test
  void followsASymlinkThatStaysInsideTheRoot() throws IOException {
    Files.createSymbolicLink(docs.root.resolve("alias.md"), docs.root.resolve("kafka.md"));

    assertThat(read("docs/alias.md").get("title").asString()).isEqualTo("Kafka");
  }

  @Test
  void readsOnlyMarkdownDocumentsThatExist() {
    assertThat(read("docs/notes.txt").get("error_type").asString()).isEqualTo("not_found");
    assertThat(read("docs/missing.md").get("error_type").asString()).isEqualTo("not_found");
    assertThat(read("docs").get("error_type").asString()).isEqualTo("not_found");
  }

  @Test
  void theFolderRefusesDirectlyToo() {
    assertThatThrownBy(() -> docs.folder().read("../pom.xml"))
        .isInstanceOfSatisfying(
            ToolException.class,
            e -> assertThat(e.errorType()).isEqualTo(ErrorType.invalid_arguments));
  }
}
