"""The 2-D proxy: a MarGo engine seen by Go tools (GoGui, gogui-twogtp) on a projected Go board."""
