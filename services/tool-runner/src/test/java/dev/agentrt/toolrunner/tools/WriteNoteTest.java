package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class WriteNoteTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;

  private ToolOutcome write(Path notes, String title, String content) {
    Toolbox toolbox =
        Toolbox.of(List.of(new WriteNote(notes)), ToolSettings.defaults(Duration.ofSeconds(5)));
    return toolbox.run(
        "write_note",
        JSON.createObjectNode().put("title", title).put("content", content).toString());
  }

  @Test
  void writesTheNoteAsAMarkdownFileNamedForItsTitle() throws Exception {
    Path notes = root.resolve("data/notes");

    JsonNode saved = JSON.readTree(write(notes, "Shopping list", "- milk").json());

    Path file = notes.resolve("shopping-list.md");
    assertThat(Files.readString(file, StandardCharsets.UTF_8))
        .isEqualTo("# Shopping list\n\n- milk\n");
    assertThat(saved.path("path").asString()).isEqualTo(file.toString());
    assertThat(saved.path("bytes").asLong()).isEqualTo(Files.size(file));
  }

  @Test
  void aSecondNoteOfTheSameTitleIsAnotherFile() throws Exception {
    write(root, "Plan", "one");
    write(root, "Plan", "two");

    assertThat(Files.readString(root.resolve("plan.md"))).contains("one");
    assertThat(Files.readString(root.resolve("plan-2.md"))).contains("two");
  }

  @Test
  void noTitleLeadsOutOfTheNotesFolder() throws Exception {
    Path notes = root.resolve("notes");

    write(notes, "../../etc/passwd", "x");
    write(notes, "/tmp/evil", "x");
    write(notes, "..\\\\windows", "x");

    try (var files = Files.list(root)) {
      assertThat(files.toList()).containsExactly(notes);
    }
    try (var files = Files.list(notes)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList())
          .containsExactlyInAnyOrder("etc-passwd.md", "tmp-evil.md", "windows.md");
    }
  }

  @Test
  void aTitleWithoutLettersOrDigitsIsRefused() {
    ToolOutcome outcome = write(root, "../..", "x");

    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    assertThat(((ToolOutcome.Failure) outcome).errorType()).isEqualTo(ErrorType.invalid_arguments);
  }

  @Test
  void fileNamesAreShortPlainAndLowerCase() {
    assertThat(WriteNote.fileName("Été à Paris!")).isEqualTo("ete-a-paris");
    assertThat(WriteNote.fileName("x".repeat(100))).hasSize(WriteNote.MAX_NAME);
  }

  @Test
  void isNotIdempotentAndWaitsForApprovalByDefault() {
    WriteNote tool = new WriteNote(root);
    assertThat(tool.idempotent()).isFalse();
    assertThat(tool.approvalRequired()).isTrue();
  }
}
