package dev.agentrt.store;

/**
 * One kind of slow work a service holds with {@link Leases}: {@link LeaseSweeper} renews its holds
 * and then has it take up what nobody holds any more.
 */
public interface LeasedWork {

  /** The holds of this kind of work. */
  Leases leases();

  /**
   * Takes up the work whose lease expired (its worker died or let go), and whatever else of this
   * kind no event brought here. Called after every renewal; safe with any number of instances, as
   * every take is a conditional write.
   */
  void sweep();
}
