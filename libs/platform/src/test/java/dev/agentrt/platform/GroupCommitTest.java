package dev.agentrt.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

  /**
   * While one write is in flight the next items queue, and the next write carries them all: the
   * first write is held on a latch until ten more items are queued.
   */
  @Test
  void whatQueuesDuringAWriteGoesOutInTheNextOne() throws Exception {
    List<List<Integer>> writes = new CopyOnWriteArrayList<>();
    CountDownLatch firstWriteStarted = new CountDownLatch(1);
    CountDownLatch releaseFirstWrite = new CountDownLatch(1);
    try (GroupCommit<Integer, String> commit =
        new GroupCommit<>(
            "test-writer",
            100,
            batch -> {
              writes.add(batch);
              firstWriteStarted.countDown();
              await(releaseFirstWrite);
              return batch.stream().map(i -> "wrote " + i).toList();
            })) {
      CompletableFuture<String> first = commit.submit(0);
      assertThat(firstWriteStarted.await(10, TimeUnit.SECONDS)).isTrue();
      List<CompletableFuture<String>> queued = new ArrayList<>();
      for (int i = 1; i <= 10; i++) {
        queued.add(commit.submit(i));
      }
      releaseFirstWrite.countDown();

      assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("wrote 0");
      for (int i = 1; i <= 10; i++) {
        assertThat(queued.get(i - 1).get(10, TimeUnit.SECONDS)).isEqualTo("wrote " + i);
      }
      assertThat(writes).containsExactly(List.of(0), List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    }
  }

  /**
   * With a linger, the writer woken by the first item waits for more: items submitted one by one
   * while it lingers (an hour: only close ends it) go out in one write, made as soon as it closes.
   */
  @Test
  void withALingerTheItemsOfTheLingerGoOutTogetherAndCloseEndsIt() throws Exception {
    List<List<Integer>> writes = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> commit =
        new GroupCommit<>(
            "test-writer",
            100,
            batch -> {
              writes.add(batch);
              return batch;
            },
            java.time.Duration.ofHours(1),
            true);
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      results.add(commit.submit(i));
    }
    assertThat(writes).as("lingering").isEmpty();

    commit.close();

    assertThat(writes).containsExactly(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
    assertThat(results).allMatch(CompletableFuture::isDone);
  }

  @Test
  void aBatchIsNoLargerThanTheMaximum() throws Exception {
    List<List<Integer>> writes = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> commit =
        new GroupCommit<>(
            "test-writer",
            4,
            batch -> {
              writes.add(batch);
              return batch;
            },
            false);
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      results.add(commit.submit(i));
    }

    commit.start();
    commit.close();

    assertThat(writes).containsExactly(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7), List.of(8, 9));
    assertThat(results).allMatch(CompletableFuture::isDone);
  }

  /**
   * Items submitted together are never split between writes, and each submission gets what the
   * write said of its own items, in order: with at most two submissions a write, 3 + 2 items go out
   * in the first write and the last submission in the next.
   */
  @Test
  void itemsSubmittedTogetherGoOutInOneWrite() throws Exception {
    List<List<Integer>> writes = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> commit =
        new GroupCommit<>(
            "test-writer",
            2,
            batch -> {
              writes.add(batch);
              return batch.stream().map(i -> i * 10).toList();
            },
            false);
    CompletableFuture<List<Integer>> three = commit.submitAll(List.of(1, 2, 3));
    CompletableFuture<List<Integer>> two = commit.submitAll(List.of(4, 5));
    CompletableFuture<Integer> one = commit.submit(6);

    commit.start();
    commit.close();

    assertThat(writes).containsExactly(List.of(1, 2, 3, 4, 5), List.of(6));
    assertThat(three.get(10, TimeUnit.SECONDS)).containsExactly(10, 20, 30);
    assertThat(two.get(10, TimeUnit.SECONDS)).containsExactly(40, 50);
    assertThat(one.get(10, TimeUnit.SECONDS)).isEqualTo(60);
  }

  /**
   * Each write's items are counted under the writer's name: writes as the count, items as total.
   */
  @Test
  void theItemsOfEachWriteAreMeasured() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try {
      GroupCommit<Integer, Integer> commit =
          new GroupCommit<>("measured-writer", 4, batch -> batch, false);
      commit.submitAll(List.of(1, 2, 3));
      commit.submit(4);
      commit.submit(5);

      commit.start();
      commit.close();

      DistributionSummary items =
          meters.get("agentrt.group-commit.items").tag("writer", "measured-writer").summary();
      assertThat(items.count()).isEqualTo(1);
      assertThat(items.totalAmount()).isEqualTo(5);
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  @Test
  void aWriteThatThrowsFailsItsBatchAndTheWriterGoesOn() throws Exception {
    try (GroupCommit<Integer, Integer> commit =
        new GroupCommit<>(
            "test-writer",
            100,
            batch -> {
              if (batch.contains(-1)) {
                throw new IllegalStateException("no write for -1");
              }
              return batch;
            })) {
      assertThatThrownBy(() -> commit.submit(-1).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("no write for -1");
      assertThat(commit.submit(7).get(10, TimeUnit.SECONDS)).isEqualTo(7);
    }
  }

  @Test
  void afterCloseASubmissionFailsAtOnceInsteadOfWaitingForever() {
    GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 100, batch -> batch);
    commit.close();

    assertThat(commit.submit(1)).isCompletedExceptionally();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
