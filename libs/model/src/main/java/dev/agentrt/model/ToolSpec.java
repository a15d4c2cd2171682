package dev.agentrt.model;

/** A tool the model may call: name, what it does, and its input as a JSON Schema. */
public record ToolSpec(String name, String description, String inputSchema) {}
