package svcbase.cloud;

/** The modules a Java function receives: data access as its caller, the app's shared memory, logs, one outbound request, small stored items, the mini-program platform. */
public final class Modules {
  public final DataModule oData;
  public final MemoryModule oMemory;
  public final LogModule oLog;
  public final HttpModule oHttp;
  public final PersistenceModule oPersistence;
  public final WechatModule oWechat;

  public Modules(Channel channel, MemoryModule memory) {
    this.oData = new DataModule(channel);
    this.oMemory = memory;
    this.oLog = new LogModule(channel);
    this.oHttp = new HttpModule(channel);
    this.oPersistence = new PersistenceModule(channel);
    this.oWechat = new WechatModule(channel);
  }
}
