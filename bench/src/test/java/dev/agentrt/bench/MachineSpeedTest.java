package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MachineSpeedTest {

  @Test
  void theFixedWorkIsTheSameEveryTime() {
    assertThat(MachineSpeed.fixedWork()).isEqualTo(MachineSpeed.fixedWork()).hasSize(64);
  }

  @Test
  void aCalibrationMeasuresTheThreadsCpuTimeOfThatWork() {
    MachineSpeed.Calibration calibration = MachineSpeed.measure();

    assertThat(calibration.digest()).isEqualTo(MachineSpeed.fixedWork());
    // One thread's CPU time, which its wall time bounds: of the 8 rounds, at least 3 measured ones
    // took the median or more, so the median is at most a third of all the rounds' wall time.
    long started = System.nanoTime();
    MachineSpeed.Calibration again = MachineSpeed.measure();
    double wallMillis = (System.nanoTime() - started) / 1e6;
    assertThat(again.cpuMillis()).isPositive().isLessThanOrEqualTo(wallMillis / 3 + 1);
  }
}
