package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executable jars built here as Spring Boot lays them out ({@code BOOT-INF/classes}, {@code
 * BOOT-INF/lib} with stored jars, a classpath index), extracted, then run by a real JVM.
 */
class BootJarExtractorTest {

  @TempDir Path dir;

  @Test
  void jarsLaidOutTogetherRunFromPlainJarsAndShareTheirLibraries() throws Exception {
    Path first = bootJar("first.jar", List.of("greeting.jar", "other.jar"));
    Path second = bootJar("second.jar", List.of("greeting.jar"));
    Path out = dir.resolve("out");

    assertThat(BootJarExtractor.extract(List.of(first, second), out)).isTrue();

    assertThat(out.resolve("lib")).isDirectoryContaining("glob:**/greeting.jar");
    try (var files = Files.list(out.resolve("lib"))) {
      assertThat(files).hasSize(2);
    }
    try (JarFile application = new JarFile(out.resolve("first.jar").toFile())) {
      Attributes main = application.getManifest().getMainAttributes();
      assertThat(main.getValue(Attributes.Name.MAIN_CLASS)).isEqualTo(App.class.getName());
      assertThat(main.getValue(Attributes.Name.CLASS_PATH))
          .isEqualTo("lib/greeting.jar lib/other.jar");
      assertThat(main.getValue("Start-Class")).isNull();
      assertThat(main.getValue("Implementation-Title")).isEqualTo("first.jar");
      assertThat(application.stream().map(JarEntry::getName))
          .contains(entry(App.class))
          .noneMatch(name -> name.startsWith("BOOT-INF"));
    }
    assertThat(run(out.resolve("second.jar"))).contains("hello from a library");
  }

  @Test
  void aJarThatIsNotASpringBootJarIsNotExtracted() throws Exception {
    Path plain = dir.resolve("plain.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, App.class.getName());
    try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(plain), manifest)) {
      add(jar, entry(App.class), classBytes(App.class), false);
    }
    Path out = dir.resolve("out");

    assertThat(BootJarExtractor.extract(List.of(bootJar("boot.jar", List.of()), plain), out))
        .isFalse();
    assertThat(out).doesNotExist();
    assertThat(dir.resolve("out.tmp")).doesNotExist();
  }

  /** The application's main class; its greeting comes from a library jar. */
  public static final class App {
    public static void main(String[] args) {
      System.out.println(Greeting.text());
    }
  }

  /** Lives in a library jar, never among the application's classes. */
  public static final class Greeting {
    public static String text() {
      return "hello from a library";
    }
  }

  private Path bootJar(String name, List<String> libraries) throws IOException {
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.put(Attributes.Name.MAIN_CLASS, "org.springframework.boot.loader.launch.JarLauncher");
    main.putValue("Start-Class", App.class.getName());
    main.putValue("Implementation-Title", name);
    main.putValue("Spring-Boot-Classes", "BOOT-INF/classes/");
    main.putValue("Spring-Boot-Lib", "BOOT-INF/lib/");
    main.putValue("Spring-Boot-Classpath-Index", "BOOT-INF/classpath.idx");
    Path jar = dir.resolve(name);
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
      add(out, "BOOT-INF/classes/", new byte[0], false);
      add(out, "BOOT-INF/classes/" + entry(App.class), classBytes(App.class), false);
      StringBuilder index = new StringBuilder();
      for (String library : libraries) {
        add(out, "BOOT-INF/lib/" + library, libraryJar(), true);
        index.append("- \"BOOT-INF/lib/").append(library).append("\"\n");
      }
      add(out, "BOOT-INF/classpath.idx", index.toString().getBytes(StandardCharsets.UTF_8), false);
    }
    return jar;
  }

  private static byte[] libraryJar() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JarOutputStream jar = new JarOutputStream(bytes)) {
      add(jar, entry(Greeting.class), classBytes(Greeting.class), false);
    }
    return bytes.toByteArray();
  }

  /** Adds an entry; {@code stored} uncompressed, as Spring Boot stores its libraries. */
  private static void add(JarOutputStream jar, String name, byte[] content, boolean stored)
      throws IOException {
    JarEntry entry = new JarEntry(name);
    if (stored) {
      CRC32 crc = new CRC32();
      crc.update(content);
      entry.setMethod(ZipEntry.STORED);
      entry.setSize(content.length);
      entry.setCrc(crc.getValue());
    }
    jar.putNextEntry(entry);
    jar.write(content);
    jar.closeEntry();
  }

  private static String entry(Class<?> type) {
    return type.getName().replace('.', '/') + ".class";
  }

  private static byte[] classBytes(Class<?> type) throws IOException {
    try (InputStream in = type.getResourceAsStream("/" + entry(type))) {
      return in.readAllBytes();
    }
  }

  private static String run(Path jar) throws Exception {
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString())
            .redirectErrorStream(true)
            .start();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (InputStream in = process.getInputStream();
        OutputStream out = output) {
      in.transferTo(out);
    }
    String text = output.toString(StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(text).isZero();
    return text;
  }
}
