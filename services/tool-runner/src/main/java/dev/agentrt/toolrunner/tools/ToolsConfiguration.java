package dev.agentrt.toolrunner.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The built-in tools, reading the documents under {@code agentrt.tools.docs-root}. */
@Configuration(proxyBeanMethods = false)
public class ToolsConfiguration {

  private static final Logger log = LoggerFactory.getLogger(ToolsConfiguration.class);

  @Bean
  Toolbox toolbox(@Value("${agentrt.tools.docs-root:docs}") Path docsRoot) {
    Path root = docsRoot.toAbsolutePath().normalize();
    if (Files.isDirectory(root)) {
      log.info("search_docs and read_doc read the documents under {}", root);
    } else {
      log.warn("docs root {} is not a folder: search_docs finds nothing", root);
    }
    return builtIn(root);
  }

  /** search_docs and read_doc over the documents under this folder. */
  public static Toolbox builtIn(Path docsRoot) {
    DocsFolder docs = new DocsFolder(docsRoot);
    return new Toolbox(List.of(new SearchDocs(docs), new ReadDoc(docs)));
  }
}
