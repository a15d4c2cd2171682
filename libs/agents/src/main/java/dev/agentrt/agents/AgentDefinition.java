package dev.agentrt.agents;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An agent as the agents file declares it.
 *
 * @param tools the tools it may call (besides {@code ask_user}, which every agent has)
 * @param maxSteps the most model turns one run of it may take
 * @param model the name of the configured model its turns use unless the task names one, or null
 *     for the default model
 * @param outputSchema a JSON Schema (as JSON text) its final answer must satisfy, or null for free
 *     text
 * @param delegates the agents it may call with {@code message_agent}; empty for none
 * @param approve tools of its list whose calls wait for a person's approval ({@code <server>__*}
 *     covers a server's tools), besides those tool-runner's configuration gates for every agent
 */
public record AgentDefinition(
    String name,
    String description,
    String systemPrompt,
    List<String> tools,
    int maxSteps,
    @Nullable String model,
    @Nullable String outputSchema,
    List<String> delegates,
    List<String> approve) {

  /** An agent whose calls need no approval of its own asking. */
  public AgentDefinition(
      String name,
      String description,
      String systemPrompt,
      List<String> tools,
      int maxSteps,
      @Nullable String model,
      @Nullable String outputSchema,
      List<String> delegates) {
    this(
        name,
        description,
        systemPrompt,
        tools,
        maxSteps,
        model,
        outputSchema,
        delegates,
        List.of());
  }

  /** An agent that calls no other agent. */
  public AgentDefinition(
      String name,
      String description,
      String systemPrompt,
      List<String> tools,
      int maxSteps,
      @Nullable String model,
      @Nullable String outputSchema) {
    this(name, description, systemPrompt, tools, maxSteps, model, outputSchema, List.of());
  }
}
