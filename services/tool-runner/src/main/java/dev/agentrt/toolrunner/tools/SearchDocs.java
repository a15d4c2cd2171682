package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code search_docs {query, limit?}}: ranks the documents by how many of the query's words they
 * contain, title words counting more. Words are compared case-insensitively and whole, a plural
 * {@code s} ignored ({@code topics} finds {@code topic}); a few English filler words are left out
 * of the query.
 *
 * <p>Score, per distinct query word: 1 if it occurs in the document, 2 more if it occurs in the
 * title. Only documents scoring above 0 are returned, best first, then by path.
 */
final class SearchDocs implements Tool {

  static final int DEFAULT_LIMIT = 5;
  static final int SNIPPET_LENGTH = 200;
  private static final int TITLE_WEIGHT = 2;
  private static final int SNIPPET_LEAD = 60;
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");
  private static final Set<String> FILLER =
      Stream.of(
              "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for",
              "from", "how", "i", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to",
              "what", "when", "where", "which", "who", "why", "with")
          .map(SearchDocs::normalize)
          .collect(Collectors.toUnmodifiableSet());
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Hit(String path, String title, String snippet, int score) {}

  record Results(List<Hit> results) {}

  private final DocsFolder docs;

  SearchDocs(DocsFolder docs) {
    this.docs = docs;
  }

  @Override
  public String name() {
    return ToolCatalog.SEARCH_DOCS;
  }

  @Override
  public String description() {
    return "Search the documents for a subject. Returns {results: [{path, title, snippet, score}]},"
        + " best first.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["query"],"additionalProperties":false,
         "properties":{"query":{"type":"string","minLength":1},
                       "limit":{"type":"integer","minimum":1,"maximum":20}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    String query = arguments.path("query").asString("");
    int limit = arguments.path("limit").asInt(DEFAULT_LIMIT);
    return MAPPER.writeValueAsString(new Results(search(query, limit)));
  }

  List<Hit> search(String query, int limit) {
    Set<String> terms = queryTerms(query);
    if (terms.isEmpty()) {
      return List.of();
    }
    List<Hit> hits = new ArrayList<>();
    for (DocsFolder.Doc doc : docs.all()) {
      Set<String> titleWords = new LinkedHashSet<>(words(doc.title()));
      Set<String> textWords = new LinkedHashSet<>(words(doc.content()));
      int score = 0;
      for (String term : terms) {
        score += (textWords.contains(term) || titleWords.contains(term) ? 1 : 0);
        score += (titleWords.contains(term) ? TITLE_WEIGHT : 0);
      }
      if (score > 0) {
        hits.add(new Hit(doc.path(), doc.title(), snippet(body(doc), terms), score));
      }
    }
    hits.sort(Comparator.comparingInt(Hit::score).reversed().thenComparing(Hit::path));
    return hits.subList(0, Math.min(limit, hits.size()));
  }

  /** The query's distinct words, without filler words unless nothing else is left. */
  static Set<String> queryTerms(String query) {
    List<String> all = words(query);
    Set<String> terms = new LinkedHashSet<>();
    for (String word : all) {
      if (!FILLER.contains(word)) {
        terms.add(word);
      }
    }
    return terms.isEmpty() ? new LinkedHashSet<>(all) : terms;
  }

  /** Lower-case words, a trailing plural {@code s} removed from words longer than three letters. */
  static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    Matcher m = WORD.matcher(text);
    while (m.find()) {
      words.add(normalize(m.group()));
    }
    return words;
  }

  private static String normalize(String word) {
    String lower = word.toLowerCase(Locale.ROOT);
    return lower.length() > 3 && lower.endsWith("s")
        ? lower.substring(0, lower.length() - 1)
        : lower;
  }

  /** The text without its title line, whitespace collapsed. */
  private static String body(DocsFolder.Doc doc) {
    String content = doc.content();
    String titleLine = "# " + doc.title();
    int at = content.indexOf(titleLine);
    if (at >= 0) {
      content = content.substring(0, at) + content.substring(at + titleLine.length());
    }
    return content.replaceAll("\\s+", " ").strip();
  }

  /**
   * About {@link #SNIPPET_LENGTH} characters of the body around its first query word, cut at word
   * boundaries; the body's beginning when only the title matched.
   */
  static String snippet(String body, Set<String> terms) {
    int hit = 0;
    Matcher m = WORD.matcher(body);
    while (m.find()) {
      if (terms.contains(normalize(m.group()))) {
        hit = m.start();
        break;
      }
    }
    int start = Math.max(0, hit - SNIPPET_LEAD);
    int end = Math.min(body.length(), start + SNIPPET_LENGTH);
    if (end - start < SNIPPET_LENGTH) {
      start = Math.max(0, end - SNIPPET_LENGTH);
    }
    if (start > 0) {
      int space = body.indexOf(' ', start);
      start = space < 0 || space >= hit ? start : space + 1;
    }
    if (end < body.length()) {
      int space = body.lastIndexOf(' ', end);
      end = space <= hit ? end : space;
    }
    return (start > 0 ? "…" : "") + body.substring(start, end) + (end < body.length() ? "…" : "");
  }
}
