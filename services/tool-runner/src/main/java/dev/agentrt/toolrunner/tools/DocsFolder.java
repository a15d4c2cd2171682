package dev.agentrt.toolrunner.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The markdown documents under one root folder, and nothing outside it. A document's path is shown
 * relative to the root's parent ({@code docs/kafka.md} for the root {@code docs}), which is the
 * repository root when the service runs there. Symbolic links are followed only while they stay
 * inside the root.
 */
final class DocsFolder {

  /** The largest file read; bigger ones are skipped by search and refused by read. */
  static final long MAX_FILE_BYTES = 1_000_000;

  private static final Pattern TITLE = Pattern.compile("(?m)^#[ \\t]+(.+?)[ \\t#]*$");
  private static final Pattern DRIVE = Pattern.compile("^[A-Za-z]:.*");

  /** A document: its shown path, its title and its whole text. */
  record Doc(String path, String title, String content) {}

  private final Path root;
  private final String rootName;

  DocsFolder(Path root) {
    this.root = root.toAbsolutePath().normalize();
    Path name = this.root.getFileName();
    this.rootName = name == null ? "" : name.toString();
  }

  Path root() {
    return root;
  }

  /** Every readable document, by path; none when the root does not exist. */
  List<Doc> all() {
    Path realRoot = realRoot();
    if (realRoot == null) {
      return List.of();
    }
    List<Doc> docs = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.comparing(Path::toString)).toList()) {
        if (file.getFileName().toString().endsWith(".md")) {
          Path real = insideRoot(file, realRoot);
          if (real != null) {
            docs.add(load(file, real));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  /**
   * The document at a path as {@link #all()} shows it ({@code docs/kafka.md}) or relative to the
   * root ({@code kafka.md}).
   *
   * @throws ToolException {@code invalid_arguments} for absolute paths and {@code ..}; {@code
   *     not_found} for anything that is not a markdown document inside the root
   */
  Doc read(String requested) {
    String path = requested.replace('\\', '/').strip();
    if (path.startsWith("/") || DRIVE.matcher(path).matches()) {
      throw new ToolException(
          ErrorType.invalid_arguments,
          "path '" + requested + "' is absolute; give it as search_docs shows it, e.g. docs/x.md");
    }
    List<String> segments = new ArrayList<>();
    for (String segment : path.split("/")) {
      if (segment.equals("..")) {
        throw new ToolException(
            ErrorType.invalid_arguments, "path '" + requested + "' must not contain '..'");
      }
      if (!segment.isEmpty() && !segment.equals(".")) {
        segments.add(segment);
      }
    }
    if (segments.size() > 1 && segments.getFirst().equals(rootName)) {
      segments.removeFirst();
    }
    Path file;
    try {
      file = root.resolve(String.join("/", segments)).normalize();
    } catch (InvalidPathException e) {
      throw new ToolException(
          ErrorType.invalid_arguments, "path '" + requested + "' is not a valid path");
    }
    Path realRoot = realRoot();
    Path real = realRoot == null || !file.startsWith(root) ? null : insideRoot(file, realRoot);
    if (real == null || !file.getFileName().toString().endsWith(".md")) {
      throw new ToolException(
          ErrorType.not_found,
          "no document '" + requested + "'; documents are the paths search_docs returns");
    }
    return load(file, real);
  }

  /** The file's real location if it is a regular, not too large file inside the root. */
  private static Path insideRoot(Path file, Path realRoot) {
    try {
      Path real = file.toRealPath();
      if (real.startsWith(realRoot)
          && Files.isRegularFile(real)
          && Files.size(real) <= MAX_FILE_BYTES) {
        return real;
      }
      return null;
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path realRoot() {
    try {
      return Files.isDirectory(root) ? root.toRealPath() : null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Doc load(Path file, Path real) {
    String content;
    try {
      content = new String(Files.readAllBytes(real), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path base = root.getParent() == null ? root : root.getParent();
    String shown = base.relativize(file).toString().replace('\\', '/');
    Matcher title = TITLE.matcher(content);
    return new Doc(
        shown, title.find() ? title.group(1).strip() : file.getFileName().toString(), content);
  }
}
