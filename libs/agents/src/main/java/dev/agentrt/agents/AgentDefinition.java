package dev.agentrt.agents;

import java.util.List;

/**
 * An agent as the agents file declares it.
 *
 * @param tools the tools it may call (besides {@code ask_user}, which every agent has)
 * @param maxSteps the most model turns one run of it may take
 */
public record AgentDefinition(
    String name, String description, String systemPrompt, List<String> tools, int maxSteps) {}
