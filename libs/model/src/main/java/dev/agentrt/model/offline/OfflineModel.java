package dev.agentrt.model.offline;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelReply.Usage;
import dev.agentrt.model.ModelRequest;
import java.time.Duration;
import java.util.List;

/**
 * The built-in model: deterministic, no network, the default when no provider is configured, so the
 * whole product runs and is tested without keys. It follows fixed rules for each {@link
 * ModelRequest.Purpose}; {@code libs/model/OFFLINE-MODEL.md} shows them with examples.
 *
 * <p>Phrases match case-insensitively, as whole words, at the start of the trimmed message.
 *
 * <h2>DECISION</h2>
 *
 * Reads the person's message (the last {@code user} message that does not start with {@code Your
 * previous decision was invalid}, so a repair prompt gets a valid decision from the same message)
 * and the one-line JSON after {@code Context: } in the system message. Answers with the JSON text
 * of exactly one decision, checking in this order:
 *
 * <ol>
 *   <li>greeting or small talk (hi, hello, hey, good morning/afternoon/evening, thanks, thank you,
 *       how are you, who are you, what can you do, help): {@code {"action":"answer","answer":…}}
 *       saying what the system can do;
 *   <li>"Save a note: &lt;text&gt;" (or "Save note: …") when {@code scribe} is listed: {@code
 *       {"action":"new_task","agent":"scribe","instruction":…}} with the message as written;
 *   <li>follow-up (also, follow up, follow-up, what about, how about, and) when a task in the
 *       context has a {@code subAgentId}: {@code
 *       {"action":"reactivate","subAgentId":…,"message":…}} for the last such task, with the
 *       message as written;
 *   <li>"Write a report on X, Y and Z" when {@code researcher} and {@code writer} are listed:
 *       {@code {"action":"plan","nodes":…}}, a {@code researcher} node per subject ({@code
 *       research-1}, …) and a {@code write} node for the writer that depends on all of them;
 *   <li>"compare …" or "Discuss X with the …" when {@code analyst} is listed: {@code
 *       {"action":"new_task","agent":"analyst","instruction":…}};
 *   <li>research verb (research, find out, find, look into, look up, lookup, compare, analyze,
 *       analyse, investigate, search, explore, study, tell me about, focus on): {@code
 *       {"action":"new_task","agent":…,"instruction":…}} for {@code researcher} if listed, else the
 *       first agent, with the message as written (an answer saying so when there is no agent);
 *   <li>"Choose …" or "Pick …" when {@code assistant} is listed: {@code
 *       {"action":"new_task","agent":"assistant","instruction":…}}, the assistant asks which;
 *   <li>anything else, when {@code assistant} is listed: {@code
 *       {"action":"new_task","agent":"assistant","instruction":…}} with confidence 0.3, below the
 *       default minimum, so the orchestrator's fallback path runs;
 *   <li>anything else: an answer that says what to try.
 * </ol>
 *
 * Every other {@code new_task}, {@code reactivate} and {@code plan} carries {@code
 * "confidence":0.9}; each a {@code reason} naming its rule.
 *
 * <h2>AGENT_TURN</h2>
 *
 * A task whose instruction starts with "write a report" is the writer's ({@link Writer}): one
 * answer, no tool, a section per subject from the material its plan node's instruction carries,
 * each with the sources its material named. A turn whose system prompt begins "You are the
 * assistant of this agent runtime" is the assistant's ({@link Assistant}): one answer, no tool, "I
 * can't do "&lt;request&gt;" myself." and what the system can do; asked to choose ("Choose a colour
 * for the logo"), it calls {@code ask_user} with the question and options (those the request names
 * after a colon or "between", else Teal, Amber, Violet for a colour, else Option A, B, C), then
 * answers "You chose &lt;answer&gt;." ({@link Choice}). With {@code message_agent} offered, the
 * turn is the analyst's ({@link Analyst}): one {@code message_agent} per subject in one turn, then
 * one answer with a section per subject and every source; "Discuss X with the …" sends a second
 * message by the first reply's {@code conversation_id}. With {@code write_note} offered, the turn
 * is the scribe's ({@link Scribe}): no {@code write_note} call since the latest {@code user}
 * message → call it with {@code {title, content}}, the content the text after "Save a note:" (else
 * the whole message), the title its first six words; after it, its result decides the answer:
 * "Saved the note &lt;path&gt;.", "I did not save the note: &lt;reason&gt;." for a rejection, "I
 * could not save the note: &lt;message&gt;." for another error. Otherwise the researcher's:
 *
 * <p>The current request is the latest {@code user} message or {@code ask_user} result after the
 * last final answer (an assistant message without tool calls). Since then:
 *
 * <ol>
 *   <li>nothing: with no subjects in the request, call {@code ask_user} {@code {"question":"What
 *       should I research?"}}; otherwise call {@code search_docs} {@code {"query":subject}} for
 *       every subject in one turn;
 *   <li>the last turn searched: call {@code read_doc} {@code {"path":…}} for the top hit of every
 *       search (distinct paths, one turn); with no hit at all, answer "I could not find anything
 *       about … in the documents.";
 *   <li>the last turn read: answer "Here is what I found about …", a paragraph {@code **title**
 *       (path): first two sentences} per document, "Could not read path: message" per failed read,
 *       and {@code Sources: path, path}.
 * </ol>
 *
 * Subjects: drop a leading follow-up marker and research verb, split on "and", ",", "vs", "versus",
 * "&amp;", trim filler words (about, on, for, for me, the, a, an, please, me, instead) and
 * punctuation at the edges, drop pronouns (it, this, that, these, those, them, something, anything,
 * stuff). A person's guidance is a {@code user} message too: the next turn's request. Only offered
 * tools are called; when the needed tool is not offered, the turn answers instead (with the
 * question itself, for {@code ask_user}). Call ids are {@code call_<assistant messages so
 * far>_<index from 0>}.
 *
 * <h2>FINAL_ANSWER</h2>
 *
 * Reads the last {@code user} message ({@code Agent: }, {@code Instruction: }, {@code Outcome: }
 * lines, then {@code Result: } or {@code Error: } and everything after it). {@code Outcome:
 * success}, or any brief with a {@code Result: } line (a partial plan): the result, trimmed.
 * Otherwise: {@code Sorry, the <agent> could not finish "<instruction>": <error>}.
 *
 * <h2>Every reply</h2>
 *
 * Usage counts a token per four characters (rounded up) of message contents and tool calls, prompt
 * and completion; finish reason {@code tool_calls} or {@code stop}; latency measured (every call
 * takes at least the configured latency, 0 by default). Apart from latency, the same request always
 * gets the same reply.
 */
public final class OfflineModel implements ModelPort {

  private final Duration latency;

  /** Answers at once. */
  public OfflineModel() {
    this(Duration.ZERO);
  }

  /**
   * @param latency how long every call takes ({@code agentrt.offline-model.latency}), so tests,
   *     demos and the bench can hold calls in flight without a fake server
   */
  public OfflineModel(Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
    this.latency = latency;
  }

  /**
   * @throws ModelException not transient, with the interrupt flag kept, when interrupted during the
   *     latency
   */
  @Override
  public ModelReply complete(ModelRequest request) {
    long started = System.nanoTime();
    waitLatency();
    ModelMessage reply =
        switch (request.purpose()) {
          case DECISION -> answer(Decider.decide(request.messages()));
          case AGENT_TURN -> agentTurn(request);
          case FINAL_ANSWER -> answer(Finalizer.answer(request.messages()));
        };
    long latencyMs = (System.nanoTime() - started) / 1_000_000;
    return new ModelReply(
        reply.content(),
        reply.toolCalls(),
        new Usage(tokens(request.messages()), tokens(List.of(reply))),
        reply.toolCalls().isEmpty() ? "stop" : "tool_calls",
        latencyMs);
  }

  /** The analyst's turn with {@code message_agent}, the scribe's with {@code write_note}. */
  private static ModelMessage agentTurn(ModelRequest request) {
    if (offers(request, Analyst.MESSAGE_AGENT)) {
      return new Analyst(request.messages()).turn();
    }
    if (offers(request, Scribe.WRITE_NOTE)) {
      return new Scribe(request.messages()).turn();
    }
    if (Writer.writes(request.messages())) {
      return Writer.turn(request.messages());
    }
    if (Assistant.answers(request.messages())) {
      return Assistant.turn(request.messages(), offers(request, Choice.ASK_USER));
    }
    return new Researcher(request.messages(), request.tools()).turn();
  }

  private static boolean offers(ModelRequest request, String tool) {
    return request.tools().stream().anyMatch(t -> t.name().equals(tool));
  }

  private void waitLatency() {
    if (latency.isZero()) {
      return;
    }
    try {
      Thread.sleep(latency);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ModelException("offline model: interrupted", false, e);
    }
  }

  private static ModelMessage answer(String content) {
    return ModelMessage.assistant(content, List.of());
  }

  private static int tokens(List<ModelMessage> messages) {
    int characters = 0;
    for (ModelMessage message : messages) {
      characters += message.content() == null ? 0 : message.content().length();
      for (var call : message.toolCalls()) {
        characters += call.name().length() + call.arguments().length();
      }
    }
    return (characters + 3) / 4;
  }
}
