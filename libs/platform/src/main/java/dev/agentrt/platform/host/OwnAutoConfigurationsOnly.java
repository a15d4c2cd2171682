package dev.agentrt.platform.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * For a service run by {@link ServicesHost} beside others on one class path: leaves out the
 * auto-configurations of jars the service itself does not ship, so that it is configured as its own
 * executable jar configures it (the orchestrator's Spring Security and API docs stay the
 * orchestrator's). The service's jars are the {@code Class-Path} of its application jar, named by
 * {@value ServicesHost#APPLICATION_JAR}. Without that property (every service run on its own) it
 * lets everything through.
 */
public class OwnAutoConfigurationsOnly
    implements AutoConfigurationImportFilter, EnvironmentAware, BeanClassLoaderAware {

  private Environment environment;
  private ClassLoader classLoader;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public boolean[] match(String[] candidates, AutoConfigurationMetadata metadata) {
    boolean[] matches = new boolean[candidates.length];
    String applicationJar = environment.getProperty(ServicesHost.APPLICATION_JAR);
    if (applicationJar == null) {
      Arrays.fill(matches, true);
      return matches;
    }
    Set<String> ownJars = jarNames(Path.of(applicationJar));
    for (int i = 0; i < candidates.length; i++) {
      String jar = candidates[i] == null ? null : jarOf(candidates[i]);
      matches[i] = jar == null || ownJars.contains(jar);
    }
    return matches;
  }

  /** The file name of the jar a class comes from; null when it is not found in a jar. */
  private String jarOf(String className) {
    URL url = classLoader.getResource(className.replace('.', '/') + ".class");
    if (url == null || !"jar".equals(url.getProtocol())) {
      return null;
    }
    String path = url.getPath();
    String file = path.substring(0, path.indexOf("!/"));
    return file.substring(file.lastIndexOf('/') + 1);
  }

  /** The application jar's own name and those of its {@code Class-Path}. */
  static Set<String> jarNames(Path applicationJar) {
    try (JarFile jar = new JarFile(applicationJar.toFile())) {
      Set<String> names = new HashSet<>();
      names.add(applicationJar.getFileName().toString());
      String classPath = jar.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
      for (String entry : classPath == null ? new String[0] : classPath.trim().split("\\s+")) {
        names.add(entry.substring(entry.lastIndexOf('/') + 1));
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the manifest of " + applicationJar, e);
    }
  }
}
