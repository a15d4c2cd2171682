package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class IdsTest {

  @Test
  void freshIdsAreVersion7UuidsThatSortByCreationTimeAcrossMilliseconds() {
    List<String> ids = new ArrayList<>();
    long lastMillis = -1;
    while (ids.size() < 5) {
      long now = System.currentTimeMillis();
      if (now != lastMillis) {
        ids.add(Ids.fresh());
        lastMillis = now;
      }
    }

    assertThat(ids).isSorted().doesNotHaveDuplicates();
    assertThat(ids).allSatisfy(id -> assertThat(UUID.fromString(id).version()).isEqualTo(7));
    assertThat(ids).noneMatch(ObjectId::isValid);
  }

  @Test
  void derivedIdsAreStableForTheSameParentAndPurposeAndDifferOtherwise() {
    assertThat(Ids.derived("m-1", "task")).isEqualTo(Ids.derived("m-1", "task"));
    assertThat(Ids.derived("m-1", "task")).isNotEqualTo(Ids.derived("m-2", "task"));
    assertThat(Ids.derived("m-1", "task")).isNotEqualTo(Ids.derived("m-1", "sub-agent"));
  }
}
