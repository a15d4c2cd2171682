package dev.agentrt.store;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a model turn was given, kept on its answer (the assistant message) so that the turn can be
 * replayed on exactly its input. The conversation is append-only, so the messages are named by
 * position rather than copied; the tools by name and by a digest of their definitions; the model is
 * the answer's own {@code model}; the agent's prompt and output schema and the model's settings by
 * the configuration version.
 *
 * @param seq the position of the newest message the turn answered: it read the messages up to it
 * @param messages how many messages it read; more at or below {@code seq} now means one was stored
 *     late, after the turn read the conversation
 * @param tools the names of the tools offered, in order
 * @param toolsDigest the {@link Digest} of the tools' definitions (name, description, input schema)
 * @param configVersion the {@link ConfigVersion} of the process that took the turn
 */
public record TurnInput(
    long seq,
    int messages,
    List<String> tools,
    String toolsDigest,
    @Nullable String configVersion) {}
