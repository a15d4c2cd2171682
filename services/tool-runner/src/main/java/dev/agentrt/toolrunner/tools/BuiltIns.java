package dev.agentrt.toolrunner.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in tools: search_docs and read_doc over {@code agentrt.tools.docs-root}, calculator,
 * current_time, write_note into {@code agentrt.tools.notes-root}, http_get when hosts are allowed,
 * web_search when an API key is set.
 */
public final class BuiltIns {

  private static final Logger log = LoggerFactory.getLogger(BuiltIns.class);

  private BuiltIns() {}

  /** The built-in tools that are usable with this configuration. */
  public static List<Tool> configured(
      Path docsRoot, Path notesRoot, HttpProperties http, WebSearchProperties webSearch) {
    Path root = docsRoot.toAbsolutePath().normalize();
    if (Files.isDirectory(root)) {
      log.info("search_docs and read_doc read the documents under {}", root);
    } else {
      log.warn("docs root {} is not a folder: search_docs finds nothing", root);
    }
    DocsFolder docs = new DocsFolder(root);
    List<Tool> tools = new ArrayList<>();
    tools.add(new SearchDocs(docs));
    tools.add(new ReadDoc(docs));
    tools.add(new Calculator());
    tools.add(new CurrentTime(Clock.systemUTC()));
    tools.add(new WriteNote(notesRoot));
    if (http.allowedHosts().isEmpty()) {
      log.info("http_get is not offered: agentrt.tools.http.allowed-hosts is empty");
    } else {
      tools.add(new HttpGet(http));
    }
    if (webSearch.enabled()) {
      tools.add(new WebSearch(webSearch));
    } else {
      log.info("web_search is not offered: agentrt.tools.web-search.api-key is not set");
    }
    return tools;
  }

  /** search_docs and read_doc over the documents under this folder. */
  public static List<Tool> docs(Path docsRoot) {
    DocsFolder docs = new DocsFolder(docsRoot);
    return List.of(new SearchDocs(docs), new ReadDoc(docs));
  }
}
