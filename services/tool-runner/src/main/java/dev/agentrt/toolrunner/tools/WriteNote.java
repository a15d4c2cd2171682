package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.text.Normalizer;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code write_note {title, content}}: a new markdown file in the notes folder ({@code
 * agentrt.tools.notes-root}), named from the title ({@code Shopping list} → {@code
 * shopping-list.md}; {@code shopping-list-2.md} when that one exists). The name keeps only letters,
 * digits and dashes, so no title leads out of the folder. Its calls wait for a person's approval
 * unless configuration says otherwise.
 *
 * <p><b>Idempotent by tool call</b>: the same call run again (its worker died mid-call) finds the
 * note it wrote and answers the same result, never writing a second file; any other call writes a
 * note of its own. The note is written in three steps, and a crash between any two leaves a state
 * the next run of the call finishes from:
 *
 * <ol>
 *   <li>the text goes, whole, into a file of this run alone in the hidden folder {@code .calls} of
 *       the notes folder ({@code <call id>.md.<random>.tmp});
 *   <li>that file is hard-linked as the call's file, {@code .calls/<call id>.md}, and its temporary
 *       name removed. A link is made only where no file is, so the call's file is whole from its
 *       first moment and never replaced: of two runs of one call racing, one links and the other
 *       uses that one's file;
 *   <li>the call's file is hard-linked under the first free name of the title: the note and the
 *       call's file are one file ({@link Files#isSameFile}), not a copy.
 * </ol>
 *
 * A run whose call's file exists looks for the note that is the same file: found, it answers with
 * it (a crash after step 3, or before the result was recorded); not found, it goes on at step 3. A
 * crash before step 2 leaves only a temporary file, which nothing reads (it is safe to delete). A
 * call's file takes no space of its own beside its note; deleting both forgets the call. Needs a
 * file system with hard links (any Linux or macOS one).
 */
final class WriteNote implements Tool {

  static final int MAX_NAME = 60;

  /** The hidden folder of the notes folder that holds each call's file. */
  static final String CALLS = ".calls";

  private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Saved(String path, long bytes) {}

  private final Path root;

  WriteNote(Path root) {
    this.root = root;
  }

  @Override
  public String name() {
    return ToolCatalog.WRITE_NOTE;
  }

  @Override
  public String description() {
    return "Save a note as a new markdown file. A person approves it first. Returns {path,"
        + " bytes}.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["title","content"],"additionalProperties":false,
         "properties":{"title":{"type":"string","minLength":1,"maxLength":200},
                       "content":{"type":"string","maxLength":100000}}}""";
  }

  @Override
  public boolean approvalRequired() {
    return true;
  }

  /** As a call of its own: a fresh id. */
  @Override
  public String execute(JsonNode arguments) {
    return execute(arguments, UUID.randomUUID().toString());
  }

  @Override
  public String execute(JsonNode arguments, String toolCallId) {
    String title = arguments.path("title").asString("").strip();
    String name = fileName(title);
    if (name.isEmpty()) {
      throw new ToolException(
          ErrorType.invalid_arguments,
          "title '" + title + "' has no letter or digit to name the note's file with");
    }
    byte[] text =
        ("# " + title + "\n\n" + arguments.path("content").asString("").strip() + "\n")
            .getBytes(StandardCharsets.UTF_8);
    try {
      Path calls = Files.createDirectories(root.resolve(CALLS));
      Path written = calls.resolve(callFileName(toolCallId) + ".md");
      Optional<Path> note = Optional.empty();
      if (Files.exists(written)) {
        note = noteOf(written);
      } else {
        writeWhole(written, text);
      }
      Path file = note.isPresent() ? note.get() : link(written, name);
      return MAPPER.writeValueAsString(new Saved(shown(file), text.length));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Steps 1 and 2: the call's file, whole, unless a racing run of the call made it first. */
  private static void writeWhole(Path written, byte[] text) throws IOException {
    Path partial = written.resolveSibling(written.getFileName() + "." + UUID.randomUUID() + ".tmp");
    Files.write(partial, text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      Files.createLink(written, partial);
    } catch (FileAlreadyExistsException racingRun) {
      // another run of the same call linked its whole file first: that one is the call's file
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  /** Step 3: the call's file under the first name free, or already there (a racing run). */
  private Path link(Path written, String name) throws IOException {
    for (int n = 1; ; n++) {
      Path file = root.resolve(n == 1 ? name + ".md" : name + "-" + n + ".md");
      try {
        Files.createLink(file, written);
        return file;
      } catch (FileAlreadyExistsException taken) {
        if (Files.isSameFile(file, written)) {
          return file;
        }
        // another note has this title: the next number
      }
    }
  }

  /** The note that is the call's file, if a run of the call got as far as linking it. */
  private Optional<Path> noteOf(Path written) throws IOException {
    try (Stream<Path> files = Files.list(root)) {
      return files.filter(file -> sameFile(file, written)).findFirst();
    }
  }

  private static boolean sameFile(Path file, Path written) {
    try {
      return Files.isRegularFile(file) && Files.isSameFile(file, written);
    } catch (IOException gone) {
      return false; // removed while we looked: not the note
    }
  }

  /** The call's id as a file name: itself when it is plain (ours are UUIDs), else a UUID of it. */
  static String callFileName(String toolCallId) {
    return PLAIN_ID.matcher(toolCallId).matches()
        ? toolCallId
        : UUID.nameUUIDFromBytes(toolCallId.getBytes(StandardCharsets.UTF_8)).toString();
  }

  /** The title as a file name: lower-case letters, digits and single dashes, at most 60. */
  static String fileName(String title) {
    String plain =
        Normalizer.normalize(title, Normalizer.Form.NFKD)
            .replaceAll("\\p{M}", "")
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9]+", "-")
            .replaceAll("^-+|-+$", "");
    return plain.length() <= MAX_NAME ? plain : plain.substring(0, MAX_NAME).replaceAll("-+$", "");
  }

  /** The file's path as configured ({@code data/notes/x.md}), not where the service runs. */
  private String shown(Path file) {
    return root.resolve(file.getFileName()).toString().replace('\\', '/');
  }
}
