import { render } from 'preact';
import { App } from './app.js';
import 'uplot/dist/uPlot.min.css';
import './app.css';

const root = document.getElementById('app')!;
render(<App api={root.dataset['api'] ?? ''} brand={root.dataset['brand'] ?? 'Svc'} />, root);
