package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Model definitions end up in logs and error messages: their keys must not. */
class ModelsPropertiesTest {

  @Test
  void aDefinitionShowsWhetherAKeyIsSetButNeverTheKey() {
    var definition =
        new ModelsProperties.Definition(
            "openai", "https://api.example/v1", "sk-secret-123", "gpt-x", null, null, null, null);
    var none = new ModelsProperties.Definition("openai", null, null, "m", null, null, null, null);

    assertThat(definition.toString())
        .doesNotContain("sk-secret-123")
        .contains("apiKey=(set)")
        .contains("model=gpt-x");
    assertThat(none.toString()).contains("apiKey=(none)");
  }

  @Test
  void theShortFormNeverShowsTheKey() {
    var shortForm = new ModelsProperties.ShortForm("openai", null, "sk-secret-123", "gpt-x");

    assertThat(shortForm.toString()).doesNotContain("sk-secret-123").contains("apiKey=(set)");
  }
}
