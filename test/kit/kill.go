package kit

// Kill stops the process at once with SIGKILL (a crash: no shutdown runs).
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
}
