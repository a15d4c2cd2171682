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
    // One id per millisecond, by the millisecond the id itself carries (its first 48 bits): the
    // clock read here and the one Ids.fresh reads can straddle a millisecond's edge, and two ids
    // of one millisecond are ordered by chance.
    List<String> ids = new ArrayList<>();
    long lastMillis = -1;
    while (ids.size() < 5) {
      String id = Ids.fresh();
      long millis = UUID.fromString(id).getMostSignificantBits() >>> 16;
      if (millis != lastMillis) {
        ids.add(id);
        lastMillis = millis;
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
