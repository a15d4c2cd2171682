package dev.agentrt.model;

/** A tool call the model asks for: its id, the tool's name, the arguments as a JSON object. */
public record ModelToolCall(String id, String name, String arguments) {}
