package dev.agentrt.toolrunner.tools;

import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.tools.web-search.*}: Tavily web search.
 *
 * @param apiKey the Tavily API key; without it {@code web_search} is not offered at all
 * @param url Tavily's search endpoint
 * @param maxResults how many results one search returns at most
 */
@ConfigurationProperties("agentrt.tools.web-search")
public record WebSearchProperties(
    @Nullable String apiKey,
    @DefaultValue("https://api.tavily.com/search") URI url,
    @DefaultValue("5") int maxResults) {

  public boolean enabled() {
    return apiKey != null && !apiKey.isBlank();
  }
}
