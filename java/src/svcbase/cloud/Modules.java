package svcbase.cloud;

/** The modules a Java function receives: data access as its caller, the app's shared memory, logs, one outbound request. */
public final class Modules {
  public final DataModule oData;
  public final MemoryModule oMemory;
  public final LogModule oLog;
  public final HttpModule oHttp;

  public Modules(Channel channel, MemoryModule memory) {
    this.oData = new DataModule(channel);
    this.oMemory = memory;
    this.oLog = new LogModule(channel);
    this.oHttp = new HttpModule(channel);
  }
}
