package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class WriteNoteTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;

  /** A call of its own (a fresh id). */
  private ToolOutcome write(Path notes, String title, String content) {
    return write(notes, title, content, UUID.randomUUID().toString());
  }

  /** A run of the stored call {@code toolCallId}, as tool-runner runs it. */
  private ToolOutcome write(Path notes, String title, String content, String toolCallId) {
    Toolbox toolbox =
        Toolbox.of(List.of(new WriteNote(notes)), ToolSettings.defaults(Duration.ofSeconds(5)));
    return toolbox.run(
        "write_note",
        JSON.createObjectNode().put("title", title).put("content", content).toString(),
        toolCallId);
  }

  /** The notes in the folder, by name; the hidden folder of the calls' files left out. */
  private static List<String> notes(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(name -> !name.startsWith("."))
          .sorted()
          .toList();
    }
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
    assertThat(notes(notes)).containsExactly("etc-passwd.md", "tmp-evil.md", "windows.md");
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
  void isIdempotentAndWaitsForApprovalByDefault() {
    WriteNote tool = new WriteNote(root);
    assertThat(tool.idempotent()).as("a re-run of a call finds its note").isTrue();
    assertThat(tool.approvalRequired()).isTrue();
  }

  // --- exactly once: a call run again (its worker died at any point) writes no second note

  @Test
  void theSameCallRunAgainFindsItsNoteAndAnswersTheSame() throws Exception {
    ToolOutcome first = write(root, "Plan", "one", "call-1");
    ToolOutcome again = write(root, "Plan", "one", "call-1");

    assertThat(again).isEqualTo(first).isInstanceOf(ToolOutcome.Success.class);
    assertThat(notes(root)).containsExactly("plan.md");
    assertThat(Files.readString(root.resolve("plan.md"))).isEqualTo("# Plan\n\none\n");
  }

  @Test
  void anotherCallWithTheSameTitleStillGetsANoteOfItsOwn() throws Exception {
    write(root, "Plan", "one", "call-1");
    JsonNode second = JSON.readTree(write(root, "Plan", "two", "call-2").json());
    write(root, "Plan", "one", "call-1"); // call-1 again, after call-2 took plan-2.md
    JsonNode secondAgain = JSON.readTree(write(root, "Plan", "two", "call-2").json());

    assertThat(notes(root)).containsExactly("plan-2.md", "plan.md");
    assertThat(second.path("path").asString()).isEqualTo(root.resolve("plan-2.md").toString());
    assertThat(secondAgain).isEqualTo(second);
    assertThat(Files.readString(root.resolve("plan.md"))).contains("one");
    assertThat(Files.readString(root.resolve("plan-2.md"))).contains("two");
  }

  @Test
  void aRunThatDiedWhileWritingTheTextLeavesNothingTheNextRunUses() throws Exception {
    Path calls = Files.createDirectories(root.resolve(WriteNote.CALLS));
    Files.writeString(calls.resolve("call-1.md.dead-run.tmp"), "# Pl"); // cut off mid-write

    JsonNode saved = JSON.readTree(write(root, "Plan", "one", "call-1").json());

    assertThat(notes(root)).containsExactly("plan.md");
    assertThat(Files.readString(root.resolve("plan.md"))).isEqualTo("# Plan\n\none\n");
    assertThat(saved.path("bytes").asLong()).isEqualTo(Files.size(root.resolve("plan.md")));
  }

  @Test
  void aRunThatDiedBeforeNamingTheNoteIsFinishedByTheNextRun() throws Exception {
    Path calls = Files.createDirectories(root.resolve(WriteNote.CALLS));
    Path written = calls.resolve("call-1.md");
    Files.writeString(written, "# Plan\n\none\n"); // the call's file, whole, not linked yet
    write(root, "Plan", "other", "call-0"); // meanwhile another call took plan.md

    JsonNode saved = JSON.readTree(write(root, "Plan", "one", "call-1").json());

    assertThat(notes(root)).containsExactly("plan-2.md", "plan.md");
    assertThat(saved.path("path").asString()).isEqualTo(root.resolve("plan-2.md").toString());
    assertThat(Files.isSameFile(root.resolve("plan-2.md"), written))
        .as("the note is the call's file, not a copy")
        .isTrue();
    assertThat(JSON.readTree(write(root, "Plan", "one", "call-1").json())).isEqualTo(saved);
    assertThat(notes(root)).hasSize(2);
  }

  @Test
  void twoRunsOfOneCallAtOnceWriteOneNote() throws Exception {
    write(root, "Plan", "taken", "call-0");
    CyclicBarrier together = new CyclicBarrier(2);
    List<Future<ToolOutcome>> runs = new ArrayList<>();
    try (ExecutorService two = Executors.newFixedThreadPool(2)) {
      for (int i = 0; i < 2; i++) {
        runs.add(
            two.submit(
                () -> {
                  together.await();
                  return write(root, "Plan", "raced", "call-1");
                }));
      }
    }

    assertThat(runs.get(0).get()).isEqualTo(runs.get(1).get());
    assertThat(notes(root)).containsExactly("plan-2.md", "plan.md");
    assertThat(Files.readString(root.resolve("plan-2.md"))).contains("raced");
  }

  @Test
  void aCallIdThatIsNoPlainFileNameStaysInsideTheCallsFolder() throws Exception {
    write(root, "Plan", "one", "../../escape/me");

    assertThat(notes(root)).containsExactly("plan.md");
    try (Stream<Path> calls = Files.list(root.resolve(WriteNote.CALLS))) {
      assertThat(calls.map(f -> f.getFileName().toString()).toList())
          .containsExactly(WriteNote.callFileName("../../escape/me") + ".md");
    }
    assertThat(WriteNote.callFileName("3f1c-call_7")).isEqualTo("3f1c-call_7");
  }
}
