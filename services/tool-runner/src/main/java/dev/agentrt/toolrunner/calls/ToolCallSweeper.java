package dev.agentrt.toolrunner.calls;

import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import dev.agentrt.store.ToolCall;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Tool calls as leased work: the service's {@link dev.agentrt.store.LeaseSweeper} renews the holds
 * of the calls this runner looks after (the heartbeat), then {@link #sweep} takes up what no worker
 * is looking after: running calls whose lease expired (their worker died), pending calls nobody
 * claimed (their event was lost, or came before the agent loop recorded the call), and finished
 * calls whose tool message may be missing (a crash between recording and answering). Each is taken
 * with a conditional write, so any number of copies can sweep at once. A call whose worker died
 * runs again only if its tool is idempotent; otherwise it ends {@code failed} with {@code
 * interrupted}.
 */
@Component
class ToolCallSweeper implements LeasedWork {

  private static final Logger log = LoggerFactory.getLogger(ToolCallSweeper.class);

  /** At most this many calls of each kind per sweep; the next sweep takes the rest. */
  static final int BATCH = 50;

  private final ToolCalls calls;
  private final ToolCallRunner runner;

  ToolCallSweeper(ToolCalls calls, ToolCallRunner runner) {
    this.calls = calls;
    this.runner = runner;
  }

  @Override
  public Leases leases() {
    return calls.leases();
  }

  @Override
  public void sweep() {
    takeUp();
  }

  /** One sweep; returns how many calls it took up. */
  int takeUp() {
    // Calls to run again hold a permit of max-concurrent-calls, taken before the claim.
    int expired =
        takeEach(
            () -> runner.claimWithPermit(calls::takeBackExpired), runner::resume, "lease expired");
    int unclaimed =
        takeEach(
            () -> runner.claimWithPermit(calls::claimUnclaimed), runner::start, "never claimed");
    int unanswered = takeEach(calls::takeBackUnanswered, runner::startAnswer, "not answered");
    return expired + unclaimed + unanswered;
  }

  private static int takeEach(
      Supplier<Optional<ToolCall>> take, Consumer<ToolCall> handle, String why) {
    int taken = 0;
    while (taken < BATCH) {
      Optional<ToolCall> call = take.get();
      if (call.isEmpty()) {
        break;
      }
      log.info("taking up tool call {} ({}): {}", call.get().id(), call.get().name(), why);
      handle.accept(call.get());
      taken++;
    }
    return taken;
  }
}
