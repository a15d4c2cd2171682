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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code write_note {title, content}}: a new markdown file in the notes folder ({@code
 * agentrt.tools.notes-root}), named from the title ({@code Shopping list} → {@code
 * shopping-list.md}; {@code shopping-list-2.md} when that one exists). The name keeps only letters,
 * digits and dashes, so no title leads out of the folder. Not idempotent: every run writes one more
 * file. Its calls wait for a person's approval unless configuration says otherwise.
 */
final class WriteNote implements Tool {

  static final int MAX_NAME = 60;
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
  public boolean idempotent() {
    return false;
  }

  @Override
  public boolean approvalRequired() {
    return true;
  }

  @Override
  public String execute(JsonNode arguments) {
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
      Files.createDirectories(root);
      for (int n = 1; ; n++) {
        Path file = root.resolve(n == 1 ? name + ".md" : name + "-" + n + ".md");
        try {
          Files.write(file, text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          return MAPPER.writeValueAsString(new Saved(shown(file), text.length));
        } catch (FileAlreadyExistsException taken) {
          // another note has this title: the next number
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
