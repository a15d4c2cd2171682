package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcTest {

  @Test
  void cpuTimeIsUserPlusSystemTicksEvenWhenTheCommandHasSpaces() {
    String stat =
        "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 40 0 100 1 2";

    assertThat(Proc.cpuSeconds(stat)).isEqualTo(3.25);
  }

  @Test
  void thisProcessHasResidentMemoryAndUsedCpu() {
    assumeTrue(Files.exists(Path.of("/proc/self/status")), "needs Linux's /proc");
    long pid = ProcessHandle.current().pid();

    assertThat(Proc.rssMiB(pid)).isPositive();
    assertThat(Proc.cpuSeconds(pid)).isPositive();
    // Loading JUnit and AssertJ alone has the C1 compiler busy for far more than a tick.
    Proc.JvmThreads jvm = Proc.jvmThreadsCpuSeconds(pid);
    assertThat(jvm.compilers()).isPositive().isLessThan(Proc.cpuSeconds(pid));
    assertThat(jvm.collectors()).isNotNegative().isLessThan(Proc.cpuSeconds(pid));
  }

  @Test
  void theCompilerThreadsAreKnownByTheirTruncatedNames() {
    assertThat(Proc.isCompilerThread("C2 CompilerThre")).isTrue();
    assertThat(Proc.isCompilerThread("C1 CompilerThre")).isTrue();
    assertThat(Proc.isCompilerThread("G1 Conc#0")).isFalse();
    assertThat(Proc.isCompilerThread("VM Thread")).isFalse();
  }

  @Test
  void theCollectorThreadsAreKnownByTheirTruncatedNames() {
    assertThat(Proc.isCollectorThread("GC Thread#0")).isTrue();
    assertThat(Proc.isCollectorThread("G1 Conc#0")).isTrue();
    assertThat(Proc.isCollectorThread("G1 Refine#1")).isTrue();
    assertThat(Proc.isCollectorThread("G1 Main Marker")).isTrue();
    assertThat(Proc.isCollectorThread("G1 Service")).isTrue();
    assertThat(Proc.isCollectorThread("C2 CompilerThre")).isFalse();
    assertThat(Proc.isCollectorThread("VM Thread")).isFalse();
  }
}
