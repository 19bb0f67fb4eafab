// Placeholder: the testbed page (three.js scene, controls) replaces this file.
const status = document.getElementById("status");
const socket = new WebSocket(`ws://${location.host}/ws`);
socket.binaryType = "arraybuffer";
socket.onmessage = (event) => {
  if (typeof event.data !== "string") {
    const view = new DataView(event.data);
    status.textContent = `step ${view.getUint32(4, true)}, ${view.getUint32(12, true)} bodies`;
  }
};
