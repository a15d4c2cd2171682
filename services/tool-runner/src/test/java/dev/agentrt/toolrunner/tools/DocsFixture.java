package dev.agentrt.toolrunner.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A folder {@code docs} under a scratch directory, with markdown documents written into it. */
final class DocsFixture {

  final Path base;
  final Path root;

  DocsFixture(Path scratch) {
    this.base = scratch;
    this.root = scratch.resolve("docs");
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a file at a path relative to the docs root. */
  DocsFixture write(String relative, String content) {
    return writeAt(root.resolve(relative), content);
  }

  /** Writes a file anywhere, e.g. next to the docs root. */
  DocsFixture writeAt(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  DocsFolder folder() {
    return new DocsFolder(root);
  }
}
