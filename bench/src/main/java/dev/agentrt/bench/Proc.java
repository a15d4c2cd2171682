package dev.agentrt.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux says about a process in {@code /proc/<pid>}: resident memory and CPU time. */
final class Proc {

  /** Clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ; 100 on Linux). */
  private static final double TICKS_PER_SECOND = 100.0;

  private Proc() {}

  /** {@code VmRSS} of {@code /proc/<pid>/status} in MiB; 0 when the process is gone. */
  static double rssMiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  /** The 1-minute load average ({@code /proc/loadavg}); NaN where there is none. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** User plus system CPU seconds the process has used ({@code utime + stime}). */
  static double cpuSeconds(long pid) {
    try {
      return cpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * CPU seconds the process's JIT compiler threads have used: the threads HotSpot names {@code C1
   * CompilerThread…} and {@code C2 CompilerThread…} ({@code /proc/<pid>/task/<tid>/comm} keeps 15
   * characters of a name). The CPU itself, not the compilation time the JVM reports, which counts
   * the time a compiler thread waits for a core too; on two shared cores that is most of it.
   */
  static double compilerCpuSeconds(long pid) {
    double seconds = 0;
    try (DirectoryStream<Path> threads =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path thread : threads) {
        try {
          if (isCompilerThread(Files.readString(thread.resolve("comm")).strip())) {
            seconds += cpuSeconds(Files.readString(thread.resolve("stat")));
          }
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return seconds;
  }

  static boolean isCompilerThread(String name) {
    return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
  }

  /** From the text of {@code /proc/<pid>/stat}: fields 14 and 15, counted after the command. */
  static double cpuSeconds(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
  }
}
