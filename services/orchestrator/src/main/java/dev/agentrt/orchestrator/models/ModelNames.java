package dev.agentrt.orchestrator.models;

import java.util.Set;

/**
 * The names of the configured models: what a chat, a message or an agent may name, and which one
 * answers a request that names none. Backed by the model router where one is configured; {@link
 * ModelsConfiguration} says how it is made.
 */
public interface ModelNames {

  boolean knows(String name);

  Set<String> names();

  /** The model a request without a model name goes to: how its tokens are priced. */
  String defaultName();

  /** The reason a name is refused, for a person to read. */
  default String unknown(String name) {
    return "unknown model '" + name + "'; known models: " + names().stream().sorted().toList();
  }
}
