package dev.agentrt.orchestrator.testing;

import dev.agentrt.orchestrator.models.ModelNames;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Configured model names for tests: a default and some others. */
public final class TestModels {

  private TestModels() {}

  public static ModelNames named(String defaultName, String... others) {
    Set<String> names = new LinkedHashSet<>();
    names.add(defaultName);
    names.addAll(List.of(others));
    return new ModelNames() {
      @Override
      public boolean knows(String name) {
        return names.contains(name);
      }

      @Override
      public Set<String> names() {
        return Set.copyOf(names);
      }

      @Override
      public String defaultName() {
        return defaultName;
      }
    };
  }
}
