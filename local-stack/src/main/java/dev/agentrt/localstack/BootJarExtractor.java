package dev.agentrt.localstack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Lays Spring Boot executable jars out as Spring Boot's {@code -Djarmode=tools extract} does, so
 * that a JVM can run them from plain jars (which class-data sharing and AOT caches need): for each,
 * an application jar named as the executable one, holding its classes and resources, whose manifest
 * names the {@code Start-Class} as {@code Main-Class} and its libraries as {@code Class-Path}, in
 * {@code lib/}, in the order of its classpath index. Several jars laid out in one directory share
 * {@code lib/}: a library of the same file name is written once.
 *
 * <p>Done here rather than by the tool because the tool takes a JVM per jar and writes each jar's
 * libraries again: 9.5 s (13.9 s of CPU) for the six services, some 900 MB written for 159 MB of
 * files, a third of the local stack's first start after a build.
 */
final class BootJarExtractor {

  private static final Attributes.Name START_CLASS = new Attributes.Name("Start-Class");
  private static final Attributes.Name CLASSES = new Attributes.Name("Spring-Boot-Classes");
  private static final Attributes.Name CLASSPATH_INDEX =
      new Attributes.Name("Spring-Boot-Classpath-Index");

  /** The executable jar's own attributes, which an application jar does not keep. */
  private static final List<Attributes.Name> BOOT_ONLY =
      List.of(
          START_CLASS,
          CLASSES,
          CLASSPATH_INDEX,
          new Attributes.Name("Spring-Boot-Lib"),
          new Attributes.Name("Spring-Boot-Layers-Index"));

  private BootJarExtractor() {}

  /**
   * Lays {@code jars} out in a fresh directory, then swaps it in for {@code dir}, so that a
   * half-done extraction is never used.
   *
   * @return false when a jar is not a Spring Boot executable jar ({@code dir} left as it was)
   */
  static synchronized boolean extract(List<Path> jars, Path dir) {
    Path staging = dir.resolveSibling(dir.getFileName() + ".tmp");
    try {
      deleteTree(staging);
      Files.createDirectories(staging.resolve("lib"));
      for (Path jar : jars) {
        if (!layOut(jar, staging)) {
          deleteTree(staging);
          return false;
        }
      }
      deleteTree(dir);
      Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + jars, e);
    }
  }

  private static boolean layOut(Path jar, Path dir) throws IOException {
    try (JarFile boot = new JarFile(jar.toFile())) {
      Manifest manifest = boot.getManifest();
      Attributes attributes = manifest == null ? null : manifest.getMainAttributes();
      if (attributes == null
          || attributes.getValue(START_CLASS) == null
          || attributes.getValue(CLASSES) == null
          || attributes.getValue(CLASSPATH_INDEX) == null
          || boot.getEntry(attributes.getValue(CLASSPATH_INDEX)) == null) {
        return false;
      }
      List<String> classPath = new ArrayList<>();
      for (String library : libraries(boot, attributes.getValue(CLASSPATH_INDEX))) {
        String name = library.substring(library.lastIndexOf('/') + 1);
        Path file = dir.resolve("lib").resolve(name);
        if (!file.getParent().equals(dir.resolve("lib"))) {
          throw new IOException(jar + " names a library outside lib/: " + library);
        }
        if (!Files.exists(file)) {
          try (InputStream in = boot.getInputStream(boot.getEntry(library))) {
            Files.copy(in, file);
          }
        }
        classPath.add("lib/" + name);
      }
      Manifest application = new Manifest(manifest);
      Attributes main = application.getMainAttributes();
      BOOT_ONLY.forEach(main::remove);
      main.put(Attributes.Name.MAIN_CLASS, attributes.getValue(START_CLASS));
      main.put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
      writeApplication(
          boot, attributes.getValue(CLASSES), application, dir.resolve(jar.getFileName()));
      return true;
    }
  }

  /** The entries the classpath index names ({@code - "BOOT-INF/lib/x.jar"}), in its order. */
  private static List<String> libraries(JarFile boot, String index) throws IOException {
    List<String> libraries = new ArrayList<>();
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(
                boot.getInputStream(boot.getEntry(index)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        int open = line.indexOf('"');
        int close = line.lastIndexOf('"');
        if (open >= 0 && close > open) {
          String library = line.substring(open + 1, close);
          if (boot.getEntry(library) == null) {
            throw new IOException(boot.getName() + " indexes a library it lacks: " + library);
          }
          libraries.add(library);
        }
      }
    }
    return libraries;
  }

  /** The classes and resources under {@code classes}, at the root of a jar of their own. */
  private static void writeApplication(
      JarFile boot, String classes, Manifest manifest, Path application) throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(application), manifest)) {
      for (JarEntry entry : Collections.list(boot.entries())) {
        String name = entry.getName();
        if (!name.startsWith(classes) || name.length() == classes.length()) {
          continue;
        }
        JarEntry copy = new JarEntry(name.substring(classes.length()));
        copy.setTime(entry.getTime());
        out.putNextEntry(copy);
        if (!entry.isDirectory()) {
          try (InputStream in = boot.getInputStream(entry)) {
            in.transferTo(out);
          }
        }
        out.closeEntry();
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
